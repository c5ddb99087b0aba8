/** A small SSE client over fetch for the relay tests: the token travels in a header, as the elements do. */

export interface ReceivedEvent {
  event: string;
  id: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

export interface OpenStream {
  status: number;
  headers: Headers;
  /** Error body when the stream was refused. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  events: ReceivedEvent[];
  /** Heartbeat comments seen. */
  comments: number;
  /** Resolves when the server ends the stream (or the client closes it). */
  ended: Promise<void>;
  /** Resolves with the first event (from the start) that satisfies `test`, or rejects after `timeoutMs`. */
  waitFor(test: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  /** Resolves once `count` heartbeats were seen. */
  waitForComments(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `GET url` as an event stream with `Authorization: Bearer token`. */
export async function openStream(url: string, token: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: ReceivedEvent[] = [];
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  const state = { comments: 0 };
  let body: unknown;
  let ended: Promise<void>;

  if (!res.ok || !res.body) {
    const text = await res.text();
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    ended = Promise.resolve();
  } else {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    ended = (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const fields: Record<string, string> = {};
            let comment = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comment = true;
              const m = /^([a-z]+): ?(.*)$/.exec(line);
              if (m) fields[m[1]!] = m[2]!;
            }
            if (comment && !fields.data) state.comments++;
            else if (fields.data !== undefined) events.push({ event: fields.event ?? 'message', id: fields.id ?? '', data: JSON.parse(fields.data) });
            notify();
          }
        }
      } catch {
        // aborted by close()
      } finally {
        notify();
      }
    })();
  }
  let finished = false;
  void ended.then(() => {
    finished = true;
    notify();
  });

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const run = () => {
        const hit = check();
        if (hit !== undefined) {
          cleanup();
          resolve(hit);
        } else if (finished) {
          cleanup();
          reject(new Error(`stream ended before ${what}; events: ${JSON.stringify(events.map((e) => e.data?.status))}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events.map((e) => e.data?.status))}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(run);
      };
      listeners.add(run);
      run();
    });

  return {
    status: res.status,
    headers: res.headers,
    body,
    events,
    get comments() {
      return state.comments;
    },
    ended,
    waitFor: (test, timeoutMs = 10_000) => waitUntil(() => events.find(test), timeoutMs, 'an event'),
    waitForComments: (count, timeoutMs = 10_000) =>
      waitUntil(() => (state.comments >= count ? true : undefined), timeoutMs, `${count} heartbeats`).then(() => undefined),
    close: () => abort.abort(),
  };
}

/** Polls `fn` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000, stepMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
