import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createProviderClient, type ClosableProviderClient, type ProviderClientConfig } from '../../src/provider/index.js';
import { BALANCE, localConfig } from './local-config.js';

/** A loopback server that holds every request until the test answers it, counting the sockets opened to it. */
async function holdingServer() {
  const held: ServerResponse[] = [];
  let sockets = 0;
  const waiters: Array<() => void> = [];
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    held.push(res);
    waiters.splice(0).forEach((w) => w());
  });
  server.on('connection', () => sockets++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sockets: () => sockets,
    held,
    /** Resolves once `n` requests are held. */
    async holding(n: number) {
      while (held.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    /** Answers the oldest held request with a balance (200). */
    answerOne() {
      held.shift()?.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(BALANCE));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const opened: ClosableProviderClient[] = [];
const servers: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function clientOf(port: number, overrides: Partial<ProviderClientConfig>): ClosableProviderClient {
  const client = createProviderClient(localConfig(port, { circuitBreaker: false, ...overrides }));
  opened.push(client);
  return client;
}

describe('provider client connection pool', () => {
  it('opens at most maxConnections sockets to a slow provider; the other calls wait for one and all complete', async () => {
    const server = await holdingServer();
    servers.push(server);
    const client = clientOf(server.port, { maxConnections: 4, timeouts: { totalMs: 60_000 } });
    const calls = Array.from({ length: 40 }, () => client.account.balance());
    await server.holding(4);
    // Each answer frees a socket for a waiting call; none ever needs a fifth.
    for (let answered = 0; answered < 40; answered++) {
      await server.holding(1);
      server.answerOne();
    }
    const results = await Promise.all(calls);
    expect(results).toHaveLength(40);
    expect(results.every((r) => r.data.credit === 10)).toBe(true);
    expect(server.sockets()).toBe(4);
  });

  it('refuses a maxConnections below 1 with the field named', () => {
    expect(() => clientOf(1, { maxConnections: 0 })).toThrow(/maxConnections: must be at least 1/);
  });
});
