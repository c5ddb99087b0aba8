/**
 * One merchant proxy process for the several-instances suite, started by `instances.ts` as
 * `node --import tsx test/proof/proxy-instance.ts` with its settings in `PROOF_INSTANCE` (JSON).
 * It mounts the proxy at /merchant-elements, marks every answer with `x-instance`, exposes the test-only
 * route POST /test/verify-proof, appends each hook call to its own file (one JSON line each), may run on a
 * clock off the true time (`clockSkewMs`), prints `{"ready":<port>}` on stdout once it listens, and exits on
 * SIGTERM or when its parent goes away.
 */
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pino } from 'pino';
import type { ProxyConfig } from '../../src/proxy/config.js';
import { providerSettingsFromEnv } from '../../src/proxy/config-env.js';
import { createMerchantProxy } from '../../src/proxy/create-proxy.js';
import { ProxyError } from '../../src/proxy/errors.js';

/** What the launcher passes in `PROOF_INSTANCE`. */
export interface InstanceSettings {
  name: string;
  sandboxUrl: string;
  redisUrl: string;
  tokenSecret: string;
  /** File this instance appends hook calls to. */
  hookFile: string;
  /** Merged over the instance's configuration (limits, relay, timeouts). */
  proxy?: Partial<Pick<ProxyConfig, 'limits' | 'relay' | 'timeouts'>>;
  /** The process kills itself (SIGKILL) inside the hook when it is given an update of this status. */
  crashInHookOn?: string;
  /** How far this process's clock (`Date.now`) is off the true time, in ms: a host whose clock drifted. */
  clockSkewMs?: number;
}

/** One line of a hook file. */
export interface HookLine {
  instance: string;
  reference: string;
  status: string;
  previous: string | null;
  final: boolean;
  idempotencyKey: string;
}

const settings = JSON.parse(process.env.PROOF_INSTANCE ?? '{}') as InstanceSettings;

if (settings.clockSkewMs) {
  // The host's clock as this process reads it; Redis and the sandbox, other processes, keep the true time.
  const trueNow = Date.now.bind(Date);
  Date.now = () => trueNow() + settings.clockSkewMs!;
}

const proxy = createMerchantProxy({
  // The sandbox's URLs and credentials, as the CLI and the demo build them.
  provider: providerSettingsFromEnv({ SANDBOX_URL: settings.sandboxUrl }),
  tokenSecret: settings.tokenSecret,
  payeeName: 'Test Shop',
  redisUrl: settings.redisUrl,
  logger: pino({ level: 'warn' }, pino.destination(2)),
  hooks: {
    onPaymentUpdate: ({ snapshot, previous, final, idempotencyKey }) => {
      // A crash in the middle of the merchant's hook: nothing after this line runs, nothing is cleaned up.
      if (settings.crashInHookOn === snapshot.status) process.kill(process.pid, 'SIGKILL');
      const line: HookLine = { instance: settings.name, reference: snapshot.reference, status: snapshot.status, previous, final, idempotencyKey };
      appendFileSync(settings.hookFile, `${JSON.stringify(line)}\n`);
    },
  },
  ...settings.proxy,
});

const app = express();
app.use((_req, res, next) => {
  res.setHeader('x-instance', settings.name);
  next();
});
// Test-only: what the merchant's own server does with the proof an <otp-verify> gave the form.
app.post('/test/verify-proof', express.json(), async (req: Request, res: Response, next: NextFunction) => {
  try {
    const { proof, purpose } = req.body as { proof: string; purpose: string };
    res.json(await proxy.verifyOtpProof(proof, { purpose }));
  } catch (err) {
    if (!(err instanceof ProxyError)) return next(err);
    res.status(err.status).json({ error: err.code, message: err.message });
  }
});
app.use('/merchant-elements', proxy.router);

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ ready: (server.address() as AddressInfo).port })}\n`);
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server.closeAllConnections();
  server.close();
  // Waits for the relay's background work (hooks) so every call this instance made is in its file.
  await proxy.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
// The parent holds our stdin: when it goes away (even killed), so do we.
process.stdin.on('end', () => void stop());
process.stdin.resume();
