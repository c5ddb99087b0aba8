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
   * Graceful stop: no new connections; once the requests already received have reached their handlers
   * (one turn of the event loop), idle connections closed; event streams ended; each other connection
   * closed as soon as its last request is answered; whatever is left cut at `deadline` (a time in ms,
   * `Date.now()`-based). Answers from then on carry `Connection: close`. Resolves once every connection is
   * gone.
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
  /** While draining: the connections with no request when it began that have not sent one since. */
  const quiet = new Set<Socket>();
  let report: DrainReport = { idle: 0, inFlight: 0, streams: 0 };
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
      if (draining) {
        res.setHeader('Connection', 'close');
        quiet.delete(socket);
        report.inFlight += 1;
      }
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
    async drain(deadline) {
      draining = true;
      report = { idle: 0, inFlight: 0, streams: 0 };
      for (const [socket, responses] of active) {
        if (responses.size === 0) quiet.add(socket);
        report.inFlight += responses.size;
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A request whose bytes have arrived but that no handler has seen yet (the process was busy, or stopped
      // and continued, when it came) looks like an idle connection until the parser reads it on a later turn
      // of the event loop. Destroyed then, it was lost: behind a balancer, a POST answered 502. So the parser
      // gets one full turn (its poll phase reads what the sockets hold) before anything counts as idle.
      await nextTurn();
      // Idle: no request when the drain began and none since (Node's own close() may have closed it already).
      report.idle = quiet.size;
      for (const socket of quiet) socket.destroy();
      quiet.clear();
      for (const responses of active.values()) {
        for (const res of responses) {
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
      await closed;
      clearTimeout(cut);
      return report;
    },
  };
}

/**
 * Resolves after the event loop's next poll phase: the first immediate runs at the end of this turn, the
 * second at the end of the next, whose poll phase has read every socket that had bytes waiting.
 */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Ends the connection once what was written to it has gone out (the answer just finished). */
function closeWhenFlushed(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}
