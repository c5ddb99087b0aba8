/**
 * A merchant's server as its own process for the bench (forked by lib/processes.ts): Express with the
 * proxy mounted at /merchant-elements, every rate limit raised out of the way, and the route the merchant's
 * own pages would use to mint element tokens (`POST /__bench/mint`, outside the proxy's mount). Asked over
 * IPC for its memory (after a full collection, or the resident size as it is), CPU time, event-loop delay
 * and log lines.
 */
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import express, { type Request, type Response } from 'express';
import { pino, type Level } from 'pino';
import { providerSettingsFromEnv } from '../../src/proxy/config-env.js';
import { DEFAULT_LIMITS, type LimitName, type LimitPolicy, type ProxyConfig } from '../../src/proxy/config.js';
import { createMerchantProxy } from '../../src/proxy/create-proxy.js';
import { collectedMemory, serveParent } from '../lib/ipc.js';

/** What the bench passes in BENCH_SETTINGS. */
export interface MerchantSettings {
  sandboxUrl: string;
  tokenSecret: string;
  /** A fixed port (the sandbox's callback URL must name it before this process starts); 0 by default. */
  port?: number;
  /** pino level of the proxy's logger; lines are counted, never printed. */
  logLevel: Level | 'silent';
  relay?: ProxyConfig['relay'];
  /** The proxy's store on this Redis (its memory store when absent). */
  redisUrl?: string;
}

/** Every policy of DESIGN's defaults, raised so that no bench traffic is ever refused by a limit. */
const RAISED_LIMITS = Object.fromEntries(
  Object.keys(DEFAULT_LIMITS).map((name) => [name, { points: 1_000_000_000, durationSec: 3_600 }]),
) as Record<LimitName, LimitPolicy>;

const settings = JSON.parse(process.env['BENCH_SETTINGS'] ?? '{}') as MerchantSettings;
/**
 * The proxy's log lines, counted by pino level (40 warn, 50 error…); the last few error and warning lines
 * kept; and warnings and errors counted by message, with the first line of each (what went wrong, and how
 * often, when a run ends with thousands of lines: the last few alone say only what came last).
 */
const logs = {
  byLevel: {} as Record<string, number>,
  lastErrors: [] as string[],
  lastWarnings: [] as string[],
  byMessage: {} as Record<string, { count: number; first: string }>,
};
/** Distinct messages kept: log messages are fixed sentences, so a few dozen at most. */
const MESSAGES_KEPT = 50;
const logger = pino(
  { level: settings.logLevel },
  {
    write(line: string) {
      const { level, msg } = JSON.parse(line) as { level?: number; msg?: string };
      logs.byLevel[String(level)] = (logs.byLevel[String(level)] ?? 0) + 1;
      if (Number(level) >= 50) logs.lastErrors = [...logs.lastErrors.slice(-4), line];
      else if (Number(level) >= 40) logs.lastWarnings = [...logs.lastWarnings.slice(-4), line];
      if (Number(level) < 40) return;
      const key = `${level} ${msg ?? ''}`;
      const seen = logs.byMessage[key];
      if (seen) seen.count++;
      else if (Object.keys(logs.byMessage).length < MESSAGES_KEPT) logs.byMessage[key] = { count: 1, first: line };
    },
  },
);

const proxy = createMerchantProxy({
  provider: providerSettingsFromEnv({ SANDBOX_URL: settings.sandboxUrl }),
  tokenSecret: settings.tokenSecret,
  payeeName: 'Bench Shop',
  logger,
  limits: RAISED_LIMITS,
  // The most wrong tries a code may take (10), so that the OTP bench needs as few codes as it can.
  otp: { maxRetries: 10 },
  ...(settings.relay ? { relay: settings.relay } : {}),
  ...(settings.redisUrl ? { redisUrl: settings.redisUrl } : {}),
});

/** How late the event loop runs its timers: where a saturated process shows first. */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

const app = express();
app.post('/__bench/mint', express.json(), async (req: Request, res: Response) => {
  const { kind, input, count = 1 } = req.body as { kind: 'otp' | 'payment' | 'checkout'; input: never; count?: number };
  const mint = proxy.tokens[kind] as (input: unknown) => Promise<string>;
  res.json({ tokens: await Promise.all(Array.from({ length: count }, () => mint(input))) });
});
app.use('/merchant-elements', proxy.router);

const server = app.listen(settings.port ?? 0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  serveParent(
    {
      memory: collectedMemory,
      cpu: () => process.cpuUsage(),
      rss: () => process.memoryUsage().rss,
      /** Memory as it stands (no collection), with V8's heap by space: where the peak's garbage sits. */
      usage: () => ({ ...process.memoryUsage(), spaces: getHeapSpaceStatistics() }),
      logs: () => logs,
      /** This instance's status reads of the provider (its metrics' `payments.status` calls sent, whatever came back). */
      statusReads: async () => {
        const metric = await proxy.metrics.registry.getSingleMetric('merchant_proxy_provider_calls_total')?.get();
        return (metric?.values ?? []).filter((v) => v.labels['operation'] === 'payments.status' && v.labels['outcome'] !== 'refused').reduce((sum, v) => sum + v.value, 0);
      },
      /** The event loop's delay since the last ask, in ms (p50, p99, max), then starts afresh. */
      loopDelay: () => {
        const ms = (ns: number) => ns / 1e6;
        const answer = { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) };
        loopDelay.reset();
        return answer;
      },
    },
    { url: `http://127.0.0.1:${port}` },
  );
});
