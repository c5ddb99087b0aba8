// The two ways a provider call travels: undici's dispatcher API on the client's own pool (the default), or
// an injected fetch (tests, instrumentation). Both bring back the same thing: status, headers and text.
import type { Agent, Dispatcher } from 'undici';
import type { Deadline } from './deadline.js';
import type { HeaderReader } from './error-mapping.js';

/** One request as the client sends it. */
export interface Outgoing {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | undefined;
  /** Ends the exchange at any point: the total timeout, or the caller's abort. */
  deadline: Deadline;
}

/** A provider's answer, read whole. */
export interface Answer {
  status: number;
  headers: HeaderReader;
  text: string;
}

export type Transport = (outgoing: Outgoing) => Promise<Answer>;

/**
 * How the default transport fails a call its deadline ended before any of it was written (still waiting
 * for a connection): the provider cannot have seen it. `reason` is the deadline's.
 */
export class NeverSent extends Error {
  constructor(readonly reason: unknown) {
    super('The call ended before it was sent');
    this.name = 'NeverSent';
  }
}

/**
 * The most of one answer the default transport reads. The provider's answers are small JSON (a bulk send's
 * is the largest, at a few hundred bytes a message); a host that streams more (a base URL pointed at the
 * wrong server) would otherwise fill the process's memory until the total timeout.
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** How the default transport fails a call whose answer grew past {@link MAX_ANSWER_BYTES}. */
export class AnswerTooLarge extends Error {
  constructor(readonly status: number) {
    super(`The answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    this.name = 'AnswerTooLarge';
  }
}

/** Response headers as undici hands them over (a repeated header as an array). */
type HeaderMap = Record<string, string | string[] | undefined>;

/**
 * Exchanges through undici's dispatcher API on `agent`, gathering the answer's chunks itself. WHATWG fetch
 * on the same pool spent a large share of a proxied OTP validation's CPU in Request, Response and stream
 * objects, and undici's request API still builds an async resource and a body stream per call, which an
 * answer read whole does not need (both measured by `npm run bench`).
 */
export function undiciTransport(agent: Agent): Transport {
  return ({ url, method, headers, body, deadline }) =>
    new Promise<Answer>((resolve, reject) => {
      const { origin, path } = splitUrl(url);
      agent.dispatch({ origin, path, method, headers, body: body ?? null }, new Exchange(deadline, resolve, reject));
    });
}

/**
 * One call's handler: settles with the whole answer, or with the first failure. The deadline ends it at
 * any point: before the connection (the call is refused at once, and ended as soon as undici starts it),
 * while waiting for the answer, or while its body stalls.
 */
class Exchange implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers: HeaderMap = {};
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  #settled = false;
  readonly #onDeadline = () => {
    if (this.#controller) {
      this.#controller.abort(this.deadline.reason as Error);
      this.#fail(this.deadline.reason);
    } else {
      // undici starts a call (onRequestStart) just before writing it: nothing has gone out yet.
      this.#fail(new NeverSent(this.deadline.reason));
    }
  };

  constructor(
    private readonly deadline: Deadline,
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (reason: unknown) => void,
  ) {
    if (deadline.aborted) this.#fail(new NeverSent(deadline.reason));
    else deadline.once('abort', this.#onDeadline);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) controller.abort(this.deadline.reason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: HeaderMap): void {
    // 1xx answers (100 Continue) come before the real one.
    if (status < 200) return;
    this.#status = status;
    this.#headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#bytes > MAX_ANSWER_BYTES) {
      const tooLarge = new AnswerTooLarge(this.#status);
      controller.abort(tooLarge);
      this.#chunks.length = 0;
      this.#fail(tooLarge);
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.deadline.off('abort', this.#onDeadline);
    const text = this.#chunks.length === 1 ? this.#chunks[0]!.toString('utf8') : Buffer.concat(this.#chunks).toString('utf8');
    this.resolve({ status: this.#status, headers: new ReceivedHeaders(this.#headers), text });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #fail(reason: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.deadline.off('abort', this.#onDeadline);
    this.reject(reason);
  }
}

/** undici's header object, read as a fetch `Headers` is (repeated headers joined). */
class ReceivedHeaders implements HeaderReader {
  constructor(private readonly received: HeaderMap) {}

  get(name: string): string | null {
    const value = this.received[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
}

/** Exchanges through an injected fetch, which may ignore the signal: the signal still ends the wait. */
export function fetchTransport(fetchImpl: typeof fetch): Transport {
  return async ({ url, method, headers, body, deadline }) => {
    const { signal } = deadline;
    const response = await raced(fetchImpl(url, { method, headers, body, redirect: 'manual', signal }), signal);
    const text = await raced(response.text(), signal);
    return { status: response.status, headers: response.headers, text };
  };
}

/** Origins of the base URLs seen (a handful per client): parsing a URL on every call costs more than the lookup. */
const origins = new Map<string, string>();

/** A URL's origin and the rest (path and query), as undici's dispatch takes them. */
function splitUrl(url: string): { origin: string; path: string } {
  // A base URL with spaces or non-ASCII in its path is percent-encoded by the URL parser, as fetch did.
  if (/[^\x21-\x7e]/.test(url)) {
    const parsed = new URL(url);
    return { origin: parsed.origin, path: parsed.pathname + parsed.search };
  }
  const end = url.indexOf('/', url.indexOf('//') + 2);
  const head = end === -1 ? url : url.slice(0, end);
  let origin = origins.get(head);
  if (origin === undefined) {
    origin = new URL(head).origin;
    if (origins.size < 100) origins.set(head, origin);
  }
  return { origin, path: end === -1 ? '/' : url.slice(end) };
}

/** Settles with the promise, or rejects as soon as the signal aborts (an injected fetch may ignore it). */
function raced<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
