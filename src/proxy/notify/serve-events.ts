import type { Request, Response } from 'express';
import { STATUS_EVENT } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { rateLimited } from '../errors.js';
import type { Subject } from '../order/keys.js';
import type { Orders } from '../order/orders.js';
import { describeError } from '../describe-error.js';
import { reportOutage } from '../outage-log.js';
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
  relay: Pick<Orders, 'streams' | 'watch' | 'unwatch' | 'live'>,
  req: Request,
  res: Response,
  options: ServeEventsOptions,
): void {
  // The client left while the route looked its order up: its response's `close` was emitted already, and a
  // stream served now would never hear it (its limiter slot, listener and heartbeat kept for good).
  if (res.destroyed) return;
  if (!relay.streams.tryAcquire(options.client, options.address)) {
    throw rateLimited(1_000, 'Too many open status streams. Close one and try again.');
  }
  // The stream outlives its route by minutes: Express leaves its router's continuation on `req.next`, which
  // kept that route's whole traversal (layers, params, the mount's callbacks) alive as long, about 2 KiB a
  // stream (`npm run bench`, scale). Nothing calls it once the stream is served. (Set, not deleted: a delete
  // turns the request into a dictionary-mode object, larger than what it frees.)
  (req as { next?: unknown }).next = undefined;
  forgetCredential(req);
  new StatusStream(ctx, relay, res, options, parseLastEventId(req.get('last-event-id')) ?? 0).changed();
}

/**
 * One served stream: what it sent last and whether a read is under way, in one object for the stream's
 * whole life (minutes, ten thousand at once in a flash sale: closures and their scopes per stream were
 * most of what a stream kept, `npx tsx bench/sections/scale-heap.ts`).
 */
class StatusStream extends SseStream {
  private reading = false;
  /** A change was signalled while a read was under way: read once more after it. */
  private again = false;
  private readonly subject: Subject;
  private readonly client: string;
  private readonly address: string | undefined;
  private readonly read: ServeEventsOptions['read'];

  constructor(
    private readonly ctx: ProxyContext,
    private readonly relay: Pick<Orders, 'streams' | 'watch' | 'unwatch' | 'live'>,
    res: Response,
    options: ServeEventsOptions,
    private lastSent: number,
  ) {
    super(res);
    ({ subject: this.subject, client: this.client, address: this.address, read: this.read } = options);
    relay.watch(this.subject, this);
    relay.live.add(this);
  }

  /** The subject changed (or the stream just opened): reads it and sends what is newer, one read at a time. */
  changed(): void {
    if (this.closed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void this.readAndSend();
  }

  protected override ended(): void {
    this.relay.live.delete(this);
    this.relay.unwatch(this.subject, this);
    this.relay.streams.release(this.client, this.address);
  }

  private async readAndSend(): Promise<void> {
    do {
      this.again = false;
      try {
        const view = await this.read();
        if (this.closed) break;
        if (!view) {
          this.close();
          break;
        }
        if (view.seq > this.lastSent) {
          this.send({ event: STATUS_EVENT, id: view.seq, data: view.snapshot });
          this.lastSent = view.seq;
        }
        // Ends at a final state, also when the client's Last-Event-ID says it already has it.
        if (view.final) this.close();
      } catch (err) {
        reportOutage(this.ctx.logger, 'status-stream-read', 'warn', { subject: this.subject, err: describeError(err) }, 'status stream read failed');
      }
    } while (this.again && !this.closed);
    this.reading = false;
  }
}
