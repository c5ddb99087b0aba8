import type { Response } from 'express';
import { HOST_RUNTIME, type Runtime } from '../runtime.js';

/** One server-sent event. */
export interface SseEvent {
  event: string;
  /** Sent as the `id:` line, which the client echoes as `Last-Event-ID` when it reconnects. */
  id: string | number;
  /** Serialised as JSON on one `data:` line. */
  data: unknown;
}

/**
 * The wire form of one event: `event:`, `id:` and `data:` lines and a blank line. JSON never holds a raw
 * newline, so one `data:` line carries it; `event` and `id` are stripped of line breaks to keep a hostile
 * value from forging fields.
 */
export function formatSseEvent({ event, id, data }: SseEvent): string {
  const clean = (s: string) => s.replace(/[\r\n]/g, '');
  return `event: ${clean(event)}\nid: ${clean(String(id))}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line (`: text`), ignored by clients; used as the heartbeat that keeps proxies from idling out. */
export function formatSseComment(text: string): string {
  return `: ${text.replace(/[\r\n]/g, ' ')}\n\n`;
}

/**
 * Reads `Last-Event-ID` as the sequence number it was sent as; null when absent or not a non-negative
 * integer (then the client gets the current state at once).
 */
export function parseLastEventId(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/**
 * An open `text/event-stream` response: headers flushed at once (`Cache-Control: no-cache`,
 * `X-Accel-Buffering: no` so nginx does not buffer) and one `close` that ends the response however it is
 * reached (final state, client gone, shutdown), then runs `ended()` once. Heartbeats come from the
 * `LiveStreams` it is added to, not from a timer of its own.
 */
export class SseStream {
  private isEnded = false;
  /** Which of `LiveStreams`' heartbeat groups the stream is in. */
  group = 0;

  constructor(private readonly res: Response) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.on('close', () => this.close());
  }

  /** True once the stream has ended, by either side. */
  get closed(): boolean {
    return this.isEnded;
  }

  /** Sends one event; ignored after close. */
  send(event: SseEvent): void {
    this.write(formatSseEvent(event));
  }

  /** Sends a heartbeat comment (`text`, which says the interval); ignored after close. */
  heartbeat(text: string): void {
    this.write(text);
  }

  /** Ends the response, then runs `ended()`. Idempotent. */
  close(): void {
    if (this.isEnded) return;
    this.isEnded = true;
    if (!this.res.writableEnded) this.res.end();
    this.ended();
  }

  /** What a subclass releases when the stream ends (once). */
  protected ended(): void {}

  private write(chunk: string): void {
    if (this.isEnded || this.res.writableEnded) return;
    this.res.write(chunk);
  }
}

/** Heartbeat groups: each is beaten in its own tick, so ten thousand streams are not written in one. */
const GROUPS = 10;

/**
 * The open streams of one process, and their heartbeats: one timer for all of them (a timer per stream was
 * an object, a closure and its scope kept per stream for its whole life, `npx tsx
 * bench/sections/scale-heap.ts`). Streams are spread over `GROUPS` groups in turn and the timer beats one
 * group every `heartbeatMs / GROUPS`, so each stream gets a heartbeat every `heartbeatMs` and a tick writes a
 * tenth of them. The timer runs only while a stream is open. Each heartbeat says the interval
 * (`: heartbeat 5000`), and a stream gets its first when added: a client learns at once how long a silence
 * means the connection is gone.
 */
export class LiveStreams {
  private readonly groups: Set<SseStream>[] = Array.from({ length: GROUPS }, () => new Set());
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private beat = 0;
  private count = 0;

  private readonly text: string;

  constructor(
    private readonly heartbeatMs: number,
    private readonly runtime: Pick<Runtime, 'interval'> = HOST_RUNTIME,
  ) {
    this.text = formatSseComment(`heartbeat ${heartbeatMs}`);
  }

  /** Open streams. */
  get size(): number {
    return this.count;
  }

  /** Adds an open stream (given heartbeats from now on). */
  add(stream: SseStream): void {
    stream.group = this.next;
    this.next = (this.next + 1) % GROUPS;
    this.groups[stream.group]!.add(stream);
    this.count++;
    stream.heartbeat(this.text);
    if (!this.timer) {
      this.timer = this.runtime.interval(() => this.tick(), Math.max(1, Math.floor(this.heartbeatMs / GROUPS)));
      this.timer.unref();
    }
  }

  /** Removes a stream (closed). */
  delete(stream: SseStream): void {
    if (!this.groups[stream.group]!.delete(stream)) return;
    if (--this.count === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Closes every open stream (shutdown). */
  closeAll(): void {
    for (const group of this.groups) for (const stream of [...group]) stream.close();
  }

  private tick(): void {
    const group = this.groups[this.beat]!;
    this.beat = (this.beat + 1) % GROUPS;
    for (const stream of group) stream.heartbeat(this.text);
  }
}
