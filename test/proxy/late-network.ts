/**
 * A network between the proxy and the provider that, when told to, loses the answer of the next request to a
 * path while a copy of the request still reaches the provider later (a gateway that passed it on, a
 * retransmission): the caller gets its failure at once, the request lands `landAfterMs` later.
 */
export interface LateNetwork {
  /** The next POST to a path ending with `pathEnd` fails at once and lands later. */
  delayNext(pathEnd?: string): void;
  /** Resolves when the delayed request has landed (its answer thrown away). */
  landed(): Promise<void>;
  fetch: typeof fetch;
}

/** `answer`: what the caller gets at once: a failed fetch, a 503, or a `0400 Bad Request` without words (a gateway that refuses and processes anyway). */
export function lateNetwork(options: { landAfterMs?: number; answer?: 'fetch failed' | '503' | '0400' } = {}): LateNetwork {
  const realFetch = globalThis.fetch;
  const landAfterMs = options.landAfterMs ?? 1_500;
  let target: string | null = null;
  let landing: Promise<void> = Promise.resolve();
  return {
    delayNext: (pathEnd = '/v1/payment') => void (target = pathEnd),
    landed: () => landing,
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (target !== null && init?.method === 'POST' && url.endsWith(target)) {
        target = null;
        const { signal: _signal, ...rest } = init;
        landing = new Promise<void>((resolve) => {
          setTimeout(() => void realFetch(input, rest).then((r) => r.body?.cancel(), () => undefined).finally(resolve), landAfterMs);
        });
        if (options.answer === '0400') {
          const body = { statusCode: '0400', statusMessage: 'Bad Request', transactionId: null, data: null, links: [] };
          return new Response(JSON.stringify(body), { status: 400, headers: { 'content-type': 'application/json' } });
        }
        if (options.answer === '503') {
          const body = { statusCode: '0503', statusMessage: 'Service Unavailable', transactionId: null, data: null, links: [] };
          return new Response(JSON.stringify(body), { status: 503, headers: { 'content-type': 'application/json' } });
        }
        throw new TypeError('fetch failed');
      }
      return realFetch(input, init);
    }) as typeof fetch,
  };
}
