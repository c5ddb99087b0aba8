import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A load balancer in front of several proxy instances, on loopback. */
export interface RoundRobinFront {
  /** `http://127.0.0.1:port`. */
  url: string;
  /** Backend origins, in turn order; may be filled after the front started (the sandbox needs its URL first). */
  backends: string[];
  /** Requests sent to each backend, by index. */
  served: number[];
  close(): Promise<void>;
}

/**
 * Request header that sends a request to one backend by index instead of the next in turn, for a test
 * whose claim needs "this one on the other instance" whatever else goes through the front meanwhile.
 */
export const PIN_HEADER = 'x-front-backend';

/** Hop-by-hop headers, which a proxy must not forward (RFC 9110 section 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

/**
 * Starts a tiny round-robin HTTP front: each request goes to the next backend (or the one named in
 * {@link PIN_HEADER}), bodies stream both ways (SSE included: headers are flushed at once and chunks pass
 * as they come), and a client that leaves closes the backend request too. A backend that cannot be reached answers 502.
 */
export async function startRoundRobinFront(backends: string[] = []): Promise<RoundRobinFront> {
  const agent = new Agent({ keepAlive: true });
  let turn = 0;
  const served: number[] = [];

  const server: Server = createServer((req, res) => {
    if (backends.length === 0) {
      res.writeHead(503).end();
      return;
    }
    const pinned = Number(req.headers[PIN_HEADER]);
    const index = Number.isInteger(pinned) && pinned >= 0 && pinned < backends.length ? pinned : turn++ % backends.length;
    served[index] = (served[index] ?? 0) + 1;
    const target = new URL(req.url ?? '/', backends[index]);
    const headers: IncomingHttpHeaders = { ...endToEnd(req.headers), host: target.host };
    delete headers[PIN_HEADER];
    const upstream = request(target, { method: req.method, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      res.flushHeaders();
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"BAD_GATEWAY"}');
      else res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    backends,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
