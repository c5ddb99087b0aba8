import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Server timeouts of `merchant-elements serve` (DESIGN: the proxy as a service). */
export const SERVICE_TIMEOUTS = {
  /** A request's headers must arrive within 10 s of its first byte (slowloris). */
  headersTimeoutMs: 10_000,
  /**
   * A whole request within 20 s: its headers within 10 s, then its body within the proxy's 10 s body
   * deadline. A backstop; answers and event streams take as long as they need.
   */
  requestTimeoutMs: 20_000,
  /**
   * How often Node checks those two. Its default, 30 s, cut a request whose headers trickled in at 10 to
   * 40 s instead of 10; every half second the cut comes within half a second of the deadline.
   */
  connectionsCheckingIntervalMs: 500,
  /**
   * An idle keep-alive connection is kept 65 s: longer than the 60 s idle timeout of the usual load
   * balancers (AWS ALB, nginx), so the balancer, not the proxy, closes it and never sends on a closed socket.
   */
  keepAliveTimeoutMs: 65_000,
  /** On SIGTERM, requests in flight get this long to finish before their connections are cut. */
  shutdownGraceMs: 10_000,
  /** How long start-up waits for the store (Redis) to answer before giving up. */
  readyTimeoutMs: 15_000,
} as const;

/** What a drain did, for the shutdown's log line. */
export interface DrainReport {
  /** Connections closed at once: no request on them (idle keep-alive, or opened and never used). */
  idle: number;
  /** Requests that were in flight. */
  inFlight: number;
  /** Event streams ended. */
  streams: number;
}

/** A Node HTTP server with the service's timeouts, which knows each connection's requests in flight. */
export interface ServiceServer {
  server: Server;
  /** Listens on `host:port`; resolves with the address taken. */
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Graceful stop: no new connections; idle ones closed at once; event streams ended; each other
   * connection closed as soon as its last request is answered; whatever is left cut at `deadline` (a
   * time in ms, `Date.now()`-based). Answers from then on carry `Connection: close`. Resolves once every
   * connection is gone.
   */
  drain(deadline: number): Promise<DrainReport>;
}

/**
 * Node's own `closeIdleConnections()` leaves a connection that was opened and never sent a request (a
 * browser's preconnect, a balancer's pool): it then held a SIGTERM for the whole grace period. This server
 * counts the requests of every connection itself.
 */
export function createServiceServer(app: RequestListener): ServiceServer {
  const active = new Map<Socket, Set<ServerResponse>>();
  let draining = false;
  const server = createServer(
    {
      headersTimeout: SERVICE_TIMEOUTS.headersTimeoutMs,
      requestTimeout: SERVICE_TIMEOUTS.requestTimeoutMs,
      keepAliveTimeout: SERVICE_TIMEOUTS.keepAliveTimeoutMs,
      connectionsCheckingInterval: SERVICE_TIMEOUTS.connectionsCheckingIntervalMs,
    },
    (req, res) => {
      const socket = req.socket;
      const responses = active.get(socket);
      if (responses) {
        responses.add(res);
        res.once('close', () => {
          responses.delete(res);
          if (draining && responses.size === 0) closeWhenFlushed(socket);
        });
      }
      // While draining, every answer asks the client to send its next request elsewhere.
      if (draining) res.setHeader('Connection', 'close');
      app(req, res);
    },
  );

  server.on('connection', (socket: Socket) => {
    active.set(socket, new Set());
    socket.once('close', () => active.delete(socket));
  });

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    drain(deadline) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const report: DrainReport = { idle: 0, inFlight: 0, streams: 0 };
      for (const [socket, responses] of active) {
        if (responses.size === 0) {
          report.idle += 1;
          socket.destroy();
          continue;
        }
        for (const res of responses) {
          report.inFlight += 1;
          // Tell the client this connection ends with the answer, so it sends its next request elsewhere.
          if (!res.headersSent) res.setHeader('Connection', 'close');
          // An event stream never ends by itself: end it as a stream ends (the client reconnects elsewhere).
          if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) {
            report.streams += 1;
            res.end();
          }
        }
      }
      const cut = setTimeout(() => {
        for (const socket of active.keys()) socket.destroy();
      }, Math.max(0, deadline - Date.now()));
      cut.unref();
      return closed.then(() => {
        clearTimeout(cut);
        return report;
      });
    },
  };
}

/** Ends the connection once what was written to it has gone out (the answer just finished). */
function closeWhenFlushed(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}
