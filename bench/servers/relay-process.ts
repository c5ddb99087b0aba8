/**
 * The floor of any relay, as its own process for the bench (forked by lib/processes.ts): an Express app
 * that takes a JSON body, sends it on to one upstream path with undici's request API (the plainest undici
 * call; the proxy's own transport uses its lighter dispatcher API) on a pool of its own, with the messaging
 * headers it was given, and passes the status and text
 * back. No token, origin rule, schema, number, store, limit or error mapping: what the proxy's OTP
 * validation costs beyond this is the cost of its checks.
 */
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { Agent } from 'undici';
import { collectedMemory, serveParent } from '../lib/ipc.js';

/** What the bench passes in BENCH_SETTINGS. */
export interface RelaySettings {
  /** Origin of the upstream (the sandbox). */
  upstream: string;
  /** The one path every request is relayed to. */
  path: string;
}

const settings = JSON.parse(process.env['BENCH_SETTINGS'] ?? '{}') as RelaySettings;
const agent = new Agent();
const FORWARDED = ['x-api-key', 'x-api-secret', 'x-api-version'];

const app = express();
app.post('/relay', express.json(), async (req: Request, res: Response) => {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
  for (const name of FORWARDED) headers[name] = req.get(name) ?? '';
  const answer = await agent.request({ origin: settings.upstream, path: settings.path, method: 'POST', headers, body: JSON.stringify(req.body) });
  const text = await answer.body.text();
  res.status(answer.statusCode).type('application/json').end(text);
});

const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  serveParent({ memory: collectedMemory, cpu: () => process.cpuUsage() }, { url: `http://127.0.0.1:${port}` });
});
