import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { RETRYABLE_CODES, type ProxyErrorCode } from '../../protocol/codes.js';
import type { ProxyErrorBody } from '../../protocol/bodies.js';

/**
 * Error codes an element can meet: the protocol's, plus `NETWORK` when the proxy could not be reached and
 * `UNSAFE_URL` when `<checkout-button>` refused a checkout page address (not `https:`).
 */
export type ClientErrorCode = ProxyErrorCode | 'NETWORK' | 'UNSAFE_URL';

/** What an element needs from its host to reach the proxy. */
export interface ProxyHost extends ReactiveControllerHost {
  /** Mount URL of the merchant's proxy (`/merchant-elements`). */
  proxy: string;
  /** Element token minted by the merchant's server. */
  token: string;
}

/**
 * A failed proxy call, in the protocol's error shape. `message` is the server's sentence, for developers;
 * the elements show their own sentence for `code` instead.
 */
export class ProxyClientError extends Error {
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    readonly details: ProxyErrorBody['details'] = {},
    /** HTTP status; 0 when the network failed. */
    readonly status = 0,
    /** True when the same call may succeed if made again later. */
    readonly retryable = code === 'NETWORK' || RETRYABLE_CODES.includes(code as ProxyErrorCode),
  ) {
    super(message);
  }
}

/** Joins the mount URL and a protocol path. */
export const proxyUrl = (host: ProxyHost, path: string) => host.proxy.replace(/\/+$/, '') + path;

/** Request headers of every call: the element token as a Bearer credential. */
export const authHeaders = (host: ProxyHost): Record<string, string> => ({
  authorization: `Bearer ${host.token}`,
});

/** Turns a non-2xx response into a {@link ProxyClientError}, whatever its body. */
export async function responseError(res: Response): Promise<ProxyClientError> {
  // A body not in the protocol's shape (a load balancer's HTML page) is classified by status.
  const body: Partial<ProxyErrorBody> = await res.json().catch(() => ({}));
  const details = body.details ?? {};
  // The page shows a generic sentence; the developer who served it from an origin the proxy does not list
  // (a dev server, Vite's `changeOrigin`) gets the origin and the fix in the console.
  if (body.error == 'ORIGIN_NOT_ALLOWED') {
    console.warn(
      `merchant-elements: origin ${location.origin} refused (ORIGIN_NOT_ALLOWED): add it to PROXY_ALLOWED_ORIGINS, or turn changeOrigin off`,
    );
  }
  return new ProxyClientError(
    body.error ?? (res.status >= 500 ? 'UPSTREAM_UNAVAILABLE' : 'UPSTREAM_ERROR'),
    body.message ?? res.statusText,
    details,
    res.status,
    details.retryable,
  );
}

/**
 * Calls the merchant's proxy with the element token: JSON in and out, typed results, protocol errors as
 * {@link ProxyClientError}. Every call takes its own `AbortSignal`, is aborted when the host disconnects, and
 * fails as `NETWORK` when no answer came within {@link ProxyClient.deadline}.
 */
export class ProxyClient implements ReactiveController {
  /**
   * Milliseconds a call may take before the element stops waiting for its answer (then `NETWORK`): on a
   * phone network an answer can be lost without the connection failing, and nothing else would end the wait.
   */
  static deadline = 10_000;

  private calls = new AbortController();

  /**
   * Milliseconds this device's clock is behind the proxy's (negative: ahead), from the last answer's `Date`
   * header: cheap phones often have the wrong time. 0 under 2 s, the header's rounding to whole seconds.
   */
  skew = 0;

  constructor(private readonly owner: ProxyHost) {
    owner.addController(this);
  }

  hostDisconnected() {
    this.abort();
  }

  /** Aborts every call in flight. */
  abort() {
    this.calls.abort();
    this.calls = new AbortController();
  }

  /** POSTs `body` as JSON to `path` (relative to the mount URL). */
  post<T>(path: string, body: object, signal?: AbortSignal): Promise<T> {
    return this.fetchJson<T>(path, signal, body);
  }

  /** GETs `path` (relative to the mount URL). */
  get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.fetchJson<T>(path, signal);
  }

  private async fetchJson<T>(path: string, signal?: AbortSignal, body?: object): Promise<T> {
    const headers = authHeaders(this.owner);
    const url = proxyUrl(this.owner, path);
    if (body) headers['content-type'] = 'application/json';
    const late = AbortSignal.timeout(ProxyClient.deadline);
    try {
      const res = await fetch(url, {
        method: body && 'POST', // else GET
        headers,
        body: body && JSON.stringify(body),
        signal: AbortSignal.any([this.calls.signal, late, signal ?? late]),
      });
      const skew = Date.parse(res.headers.get('date')!) - Date.now() || 0;
      this.skew = Math.abs(skew) < 2e3 ? 0 : skew;
      if (!res.ok) throw await responseError(res);
      return (await res.json()) as T;
    } catch (e) {
      // Past the deadline: the answer is lost, and what the call did only the proxy knows (the caller asks it).
      if (late.aborted) throw new ProxyClientError('NETWORK', '');
      // Aborts propagate as they are (the caller stopped caring); anything else the transport threw is NETWORK.
      if (e instanceof ProxyClientError || (e as Error).name == 'AbortError') throw e;
      // Or the page's origin is refused: the browser hides a refused preflight. A GET without a token needs
      // none, and the proxy lets a refused origin read its refusal (403 ORIGIN_NOT_ALLOWED, hinted above).
      const probe = await fetch(url, { signal: late }).catch(() => null);
      throw probe?.status == 403 ? await responseError(probe) : new ProxyClientError('NETWORK', String(e));
    }
  }
}
