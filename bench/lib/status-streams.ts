import { Agent, request } from 'node:http';

/** What one status stream received: each `status` event's status and when it arrived (`performance.now()`). */
export interface StreamLog {
  /** HTTP status of the answer (0 until it came, or when the request failed). */
  status: number;
  events: { status: string; at: number }[];
  /** When the server ended the stream, or the request failed; undefined while it is open. */
  endedAt?: number;
  error?: string;
}

/** A status stream the bench holds open, as a browser would. */
export interface StatusStream {
  log: StreamLog;
  /** Resolves with the arrival time of the first event whose status is `status`; rejects if the stream ends first. */
  arrival(status: string): Promise<number>;
  close(): void;
}

// One socket per stream, never pooled: each is a browser of its own.
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

/**
 * Opens `GET url` as an event stream with the token in `Authorization`, as the elements do, and keeps only
 * what the bench measures: the status of each `status` event and its arrival time. Far lighter than a
 * fetch body reader per stream, so that ten thousand of them fit in the bench process beside its other work.
 */
export function openStatusStream(url: string, token: string): StatusStream {
  const log: StreamLog = { status: 0, events: [] };
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  const req = request(url, { agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
    log.status = res.statusCode ?? 0;
    res.setEncoding('utf8');
    let buffer = '';
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (data && /^event: status$/m.test(block)) log.events.push({ status: (JSON.parse(data) as { status: string }).status, at: performance.now() });
      }
      notify();
    });
    res.on('end', () => {
      log.endedAt ??= performance.now();
      notify();
    });
    res.on('error', (err) => {
      log.error ??= err.message;
      log.endedAt ??= performance.now();
      notify();
    });
  });
  req.on('error', (err) => {
    log.error ??= err.message;
    log.endedAt ??= performance.now();
    notify();
  });
  req.end();
  return {
    log,
    arrival: (status) =>
      new Promise<number>((resolve, reject) => {
        const check = () => {
          const hit = log.events.find((e) => e.status === status);
          if (hit) resolve(hit.at);
          else if (log.endedAt !== undefined) reject(new Error(`stream ended before ${status}: ${log.error ?? `HTTP ${log.status}`}, events ${log.events.map((e) => e.status).join(',')}`));
          else return;
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: () => req.destroy(),
  };
}
