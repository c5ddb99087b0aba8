import type { BenchProcess } from './processes.js';

/** Mount path of the proxy in the merchant process. */
export const MOUNT = '/merchant-elements';

/** The token secret of this run's merchant processes (nothing else knows it). */
export const BENCH_SECRET = `bench-${Date.now()}-secret-of-at-least-thirty-two-bytes`;

/** An HTTP answer, its body parsed when it is JSON. */
export interface JsonAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Sends one request (a JSON body when `body` is given) and reads the whole answer. */
export async function call(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<JsonAnswer> {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? null : JSON.stringify(init.body),
    redirect: 'manual',
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: res.status, body };
}

/** Throws with the answer when its status is not the expected one. */
export function expectStatus(answer: JsonAnswer, status: number, what: string): JsonAnswer {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

/** Element tokens minted by the merchant's own server (the merchant process), as when it renders pages. */
export async function mint(merchant: BenchProcess, kind: 'otp' | 'payment' | 'checkout', input: object, count = 1): Promise<string[]> {
  const answer = expectStatus(await call(`${merchant.url}/__bench/mint`, { body: { kind, input, count } }), 200, `mint ${kind}`);
  return answer.body.tokens as string[];
}

/** The headers a same-origin page sends to the proxy: the token, and on a POST its own Origin. */
export function browserHeaders(merchant: BenchProcess, token: string, post = false): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...(post ? { origin: merchant.url } : {}) };
}

/** Runs `fn` over `items` with at most `limit` at a time; resolves the results in order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
