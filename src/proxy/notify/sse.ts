import type { Response } from 'express';

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

export interface SseStreamOptions {
  /** Interval of heartbeat comments, in milliseconds. */
  heartbeatMs: number;
}

/**
 * An open `text/event-stream` response: headers flushed at once (`Cache-Control: no-cache`,
 * `X-Accel-Buffering: no` so nginx does not buffer), heartbeat comments on a timer, and one `close`
 * that ends the response and stops the timer however it is reached (final state, client gone, shutdown).
 */
export class SseStream {
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly closeListeners: Array<() => void> = [];
  private ended = false;

  constructor(
    private readonly res: Response,
    options: SseStreamOptions,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    this.heartbeat = setInterval(() => this.write(formatSseComment('heartbeat')), options.heartbeatMs);
    this.heartbeat.unref();
    res.on('close', () => this.close());
  }

  /** True once the stream has ended, by either side. */
  get closed(): boolean {
    return this.ended;
  }

  /** Sends one event; ignored after close. */
  send(event: SseEvent): void {
    this.write(formatSseEvent(event));
  }

  /** Runs `listener` once when the stream ends (at once if it already has). */
  onClose(listener: () => void): void {
    if (this.ended) listener();
    else this.closeListeners.push(listener);
  }

  /** Ends the response and releases the stream's timer and listeners. Idempotent. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    if (!this.res.writableEnded) this.res.end();
    for (const listener of this.closeListeners.splice(0)) {
      try {
        listener();
      } catch {
        // A cleanup listener failing must not keep the others from running.
      }
    }
  }

  private write(chunk: string): void {
    if (this.ended || this.res.writableEnded) return;
    this.res.write(chunk);
  }
}
