// The two ways a provider call travels: undici's request API on the client's own pool (the default), or
// an injected fetch (tests, instrumentation). Both bring back the same thing: status, headers and text.
import type { Agent } from 'undici';
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
 * Exchanges through undici's own request API on `agent`. WHATWG fetch on the same pool spent a large share
 * of a proxied OTP validation's CPU in Request, Response and stream objects (measured by `npm run bench`).
 */
export function undiciTransport(agent: Agent): Transport {
  return async ({ url, method, headers, body, deadline }) => {
    const { origin, path } = splitUrl(url);
    // undici takes the deadline as an EventEmitter signal and ends the request and its body stream with
    // its reason: no race needed.
    const response = await agent.request({ origin, path, method, headers, body: body ?? null, signal: deadline });
    const text = await response.body.text();
    return { status: response.statusCode, headers: new ReceivedHeaders(response.headers), text };
  };
}

/** undici's header object, read as a fetch `Headers` is (repeated headers joined). */
class ReceivedHeaders implements HeaderReader {
  constructor(private readonly received: Record<string, string | string[] | undefined>) {}

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

/** A URL's origin and the rest (path and query), as undici's request takes them. */
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
