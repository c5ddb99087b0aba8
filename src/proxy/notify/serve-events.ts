import type { Request, Response } from 'express';
import { STATUS_EVENT } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { rateLimited } from '../errors.js';
import type { Subject } from '../order/keys.js';
import type { Orders } from '../order/orders.js';
import { describeError } from '../describe-error.js';
import { parseLastEventId, SseStream } from './sse.js';

/** The current state of a watched subject, as the stream sends it. */
export interface StreamView {
  /** Sequence of this state (the event `id`). */
  seq: number;
  snapshot: unknown;
  final: boolean;
}

export interface ServeEventsOptions {
  subject: Subject;
  /** The client whose streams are counted (token jti + IP). */
  client: string;
  /** The client's address key (IPv6 by prefix): streams are counted per address too, whatever the token. */
  address?: string;
  /** Reads the subject's current state from the store; null when it vanished. */
  read(): Promise<StreamView | null>;
}

/** What a served stream's request keeps in place of its bearer token. */
export const FORGOTTEN = '[redacted]';

/**
 * Replaces the bearer token in both copies of the request's headers (`headers` and `rawHeaders`): verified,
 * it is needed no more, and a stream's request lives as long as the stream, minutes, with its token twice
 * (two strings of about 0.4 KiB each for the bench's tokens, `npx tsx bench/sections/scale-heap.ts`).
 * Nothing reads a served stream's credential again: the access line is written without headers.
 */
function forgetCredential(req: Request): void {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length - 1; i += 2) if (raw[i]!.toLowerCase() === 'authorization') raw[i + 1] = FORGOTTEN;
  if (req.headers.authorization !== undefined) req.headers.authorization = FORGOTTEN;
}

/**
 * Serves `status` events of one subject over SSE: the current state at once (or, with `Last-Event-ID`,
 * only states newer than it), then each change, until a final state; heartbeats between. At most
 * `maxStreamsPerClient` streams per client (then RATE_LIMITED, before any byte of the stream). The stream
 * only listens: the subject's poller runs (and keeps running) whether or not anyone watches.
 */
export function serveEvents(
  ctx: ProxyContext,
  relay: Pick<Orders, 'streams' | 'watch' | 'live' | 'options'>,
  req: Request,
  res: Response,
  options: ServeEventsOptions,
): void {
  const release = relay.streams.tryAcquire(options.client, options.address);
  if (!release) throw rateLimited(1_000, 'Too many open status streams. Close one and try again.');
  const stream = new SseStream(res, { heartbeatMs: relay.options.heartbeatMs });
  let lastSent = parseLastEventId(req.get('last-event-id')) ?? 0;
  let running: Promise<void> = Promise.resolve();

  const push = () => {
    running = running.then(async () => {
      if (stream.closed) return;
      try {
        const view = await options.read();
        if (stream.closed) return;
        if (!view) {
          stream.close();
          return;
        }
        if (view.seq > lastSent) {
          stream.send({ event: STATUS_EVENT, id: view.seq, data: view.snapshot });
          lastSent = view.seq;
        }
        // Ends at a final state, also when the client's Last-Event-ID says it already has it.
        if (view.final) stream.close();
      } catch (err) {
        ctx.logger.warn({ subject: options.subject, err: describeError(err) }, 'status stream read failed');
      }
    });
  };

  // The stream outlives its route by minutes: Express leaves its router's continuation on `req.next`, which
  // kept that route's whole traversal (layers, params, the mount's callbacks) alive as long, about 2 KiB a
  // stream (`npm run bench`, scale). Nothing calls it once the stream is served. (Set, not deleted: a delete
  // turns the request into a dictionary-mode object, larger than what it frees.)
  (req as { next?: unknown }).next = undefined;
  forgetCredential(req);
  const unwatch = relay.watch(options.subject, push);
  relay.live.add(stream);
  stream.onClose(() => {
    relay.live.delete(stream);
    unwatch();
    release();
  });
  push();
}
