// A customer who leaves while the proxy is still looking up their order (the page closed, the network
// dropped) must not leave a stream behind: its slot of the per-token limit, its listener and its heartbeat
// would be held for good, and after three such departures the same page could open no status stream.
import type { AddressInfo } from 'node:net';
import { request, type Server, type ServerResponse } from 'node:http';
import express from 'express';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyContext } from '../../src/proxy/context.js';
import { serveEvents } from '../../src/proxy/notify/serve-events.js';
import { LiveStreams } from '../../src/proxy/notify/sse.js';
import { StreamLimiter } from '../../src/proxy/notify/stream-limiter.js';
import { Watchers } from '../../src/proxy/notify/watchers.js';

describe('a status stream whose client left before it was served', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('is closed at once: it keeps no limiter slot, no listener and no heartbeat', async () => {
    const watchers = new Watchers();
    const live = new LiveStreams(20_000);
    const streams = new StreamLimiter(3, 30);
    const relay = {
      streams,
      live,
      watch: (subject: string, listener: { changed(): void }) => watchers.watch(subject, listener),
      unwatch: (subject: string, listener: { changed(): void }) => watchers.unwatch(subject, listener),
    };
    const ctx = { logger: pino({ level: 'silent' }) } as unknown as ProxyContext;
    let reads = 0;
    // The route's own lookup (the order, the token's terms) takes a while: the client leaves meanwhile.
    let lookedUp!: () => void;
    const lookup = new Promise<void>((resolve) => (lookedUp = resolve));
    let gone!: () => void;
    const left = new Promise<void>((resolve) => (gone = resolve));
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const app = express();
    app.get('/events', async (req, res) => {
      (res as ServerResponse).once('close', () => gone());
      arrived();
      await lookup;
      serveEvents(ctx, relay, req, res, {
        subject: 'payment:ORDER-1-1',
        client: 'jti|127.0.0.1',
        address: '127.0.0.1',
        read: async () => {
          reads++;
          return { seq: 1, snapshot: { status: 'PENDING' }, final: false };
        },
      });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    const { port } = server.address() as AddressInfo;

    const client = request(`http://127.0.0.1:${port}/events`);
    client.on('error', () => {});
    client.end();
    await reached;
    client.destroy();
    await left;
    lookedUp();
    // serveEvents ran synchronously after the lookup; give its first read a turn to show itself.
    await new Promise((resolve) => setImmediate(resolve));

    expect(streams.count('jti|127.0.0.1')).toBe(0);
    expect(watchers.count('payment:ORDER-1-1')).toBe(0);
    expect(live.size).toBe(0);
    expect(reads).toBe(0);
  });
});
