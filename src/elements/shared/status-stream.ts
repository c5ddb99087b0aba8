import type { ReactiveController } from 'lit';
import { STATUS_EVENT } from '../../protocol/names.js';
import { SSE_HEARTBEAT_MS } from '../../protocol/paths.js';
import { authHeaders, proxyUrl, responseError, type ProxyClient, type ProxyClientError, type ProxyHost } from './proxy-client.js';
import { sleep } from './sleep.js';

/** What to watch and what to do with each status. */
export interface StatusWatch<T> {
  /** Protocol path of the `text/event-stream` of `status` events. */
  events: string;
  /** Protocol path of the status snapshot, polled when the stream keeps failing. */
  snapshot: string;
  /** True for a final status: watching stops after it is delivered. */
  isFinal(status: T): boolean;
  onStatus(status: T): void;
  /** A refusal that retrying cannot fix (expired token, unknown reference); watching has stopped. */
  onError(error: ProxyClientError): void;
}

/** Timings of the watch, in milliseconds; tests shorten them. */
export interface StreamTimings {
  /** First reconnect delay; doubles after each failure up to `maxDelay`. */
  baseDelay: number;
  maxDelay: number;
  /** Stream failures in a row after which the snapshot route is polled instead (for good). */
  maxFailures: number;
  /** Interval of snapshot polling. */
  pollInterval: number;
  /**
   * The proxy's heartbeat interval (`SSE_HEARTBEAT_MS`; the proxy's `relay.heartbeatMs` must not exceed it): a
   * connection silent for three heartbeats is taken for dead, and one that says nothing within one, too (the
   * proxy's first heartbeat comes with the headers).
   */
  heartbeat: number;
}

/** One server-sent event. */
export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/** Parses server-sent-event text into messages; returns the unfinished tail to prepend to the next chunk. */
export function parseSse(text: string, emit: (m: SseMessage) => void): string {
  const blocks = text.split(/\r?\n\r?\n/);
  const tail = blocks.pop()!;
  for (const block of blocks) {
    const m = { event: 'message' } as SseMessage;
    let data: string | undefined;
    for (const line of block.split(/\r?\n/)) {
      // `field: value`; a line starting with `:` (empty field) is a comment: the heartbeat.
      const [, field, value] = /^([^:]*):? ?(.*)/.exec(line)!;
      if (field == 'data') data = data == null ? value! : data + '\n' + value;
      else if (field == 'event' || field == 'id') m[field] = value!;
    }
    if (data != null) emit({ ...m, data });
  }
  return tail;
}

/**
 * Watches a payment's or checkout's status: server-sent events read over `fetch` (so the token travels in
 * the Authorization header), resumed with `Last-Event-ID` after a drop with a growing delay, and replaced
 * by polling the snapshot route once the stream has failed `maxFailures` times in a row. A connection
 * silent for three of the proxy's heartbeats is dropped (a phone network loses connections without closing
 * them); the browser coming back online, or the page being shown again, reconnects at once (to the stream,
 * even after polling). `offline` says, while the watch lasts, that the connection is gone. Stops at a final
 * status, on `stop()`, and when the host disconnects.
 */
export class StatusStreamController<T> implements ReactiveController {
  /** Timings of new controllers (tests shorten them). */
  static defaults: StreamTimings = { baseDelay: 1_000, maxDelay: 10_000, maxFailures: 3, pollInterval: 3_000, heartbeat: SSE_HEARTBEAT_MS };
  timings = StatusStreamController.defaults;
  private watching?: AbortController | undefined;
  /**
   * True while watching without a connection: the browser went offline, or the last connection or read
   * failed and none has answered since.
   */
  offline = false;
  /** Ends the connection or wait under way: the watch reconnects at once. */
  private nudge?: (() => void) | undefined;

  constructor(
    private readonly owner: ProxyHost,
    private readonly client: ProxyClient,
  ) {
    owner.addController(this);
  }

  hostConnected() {
    for (const type of NETWORK_EVENTS) addEventListener(type, this.onNetwork);
  }

  hostDisconnected() {
    for (const type of NETWORK_EVENTS) removeEventListener(type, this.onNetwork);
    this.stop();
  }

  /** Offline: says so; back online or shown again: reconnects at once. */
  private onNetwork = () => (navigator.onLine ? document.hidden || this.nudge?.() : this.say(!!this.watching));

  /** Sets `offline` (also for a caller that lost its own call's answer, until the next `start` or `stop`). */
  say(offline: boolean) {
    if (this.offline != offline) (this.offline = offline), this.owner.requestUpdate();
  }

  /** Starts watching, replacing any watch in progress. */
  start(watch: StatusWatch<T>) {
    this.stop();
    this.run(watch, (this.watching = new AbortController()).signal);
  }

  stop() {
    this.watching?.abort();
    this.watching = this.nudge = undefined;
    this.say(false);
  }

  private async run(watch: StatusWatch<T>, signal: AbortSignal) {
    const { owner: host } = this;
    const { baseDelay, maxDelay, maxFailures, pollInterval, heartbeat } = this.timings;
    let failures = 0;
    let lastId = '';
    let done = false;
    const deliver = (status: T) => (done = !signal.aborted && (watch.onStatus(status), watch.isFinal(status)));
    while (!signal.aborted) {
      // This connection and the wait after it, which a nudge ends.
      const conn = new AbortController();
      const both = AbortSignal.any([signal, conn.signal]);
      this.nudge = () => ((failures = 0), conn.abort());
      let idle: ReturnType<typeof setTimeout> | undefined;
      const arm = (beats: number) => (clearTimeout(idle), (idle = setTimeout(() => conn.abort(), beats * heartbeat)));
      try {
        if (failures >= maxFailures) {
          deliver(await this.client.get<T>(watch.snapshot, both));
        } else {
          const headers = authHeaders(host);
          headers['accept'] = 'text/event-stream';
          if (lastId) headers['last-event-id'] = lastId;
          // The proxy's first heartbeat comes with the headers.
          arm(1);
          const res = await fetch(proxyUrl(host, watch.events), { headers, signal: both });
          if (!res.ok) throw await responseError(res);
          this.say(false);
          const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (let chunk; !done && !(chunk = await reader.read()).done; ) {
            arm(3);
            buffer = parseSse(buffer + chunk.value, (m) => {
              lastId = m.id ?? lastId;
              failures = 0;
              if (m.event == STATUS_EVENT && !done) deliver(JSON.parse(m.data) as T);
            });
          }
          failures++; // the stream ended before a final status
        }
        this.say(false);
      } catch (e) {
        // A 4xx other than 429 (an expired token, an unknown reference) will not change by retrying. Only a
        // ProxyClientError has a status (not an abort, a network failure or a garbled event).
        const { status } = e as ProxyClientError;
        if (status >= 400 && status < 500 && status != 429) return signal.aborted || watch.onError(e as ProxyClientError);
        failures++;
        this.say(!signal.aborted);
      }
      clearTimeout(idle);
      // A final status leaves the connection open: close it.
      if (done) return conn.abort();
      await sleep(failures < maxFailures ? Math.min(baseDelay * 2 ** (failures - 1), maxDelay) : pollInterval, both);
    }
  }
}

/**
 * What says the network may be back, or gone: the browser's online and offline events, and the page shown or
 * hidden (fired at the document, it reaches the window too).
 */
const NETWORK_EVENTS = ['online', 'offline', 'visibilitychange'];
