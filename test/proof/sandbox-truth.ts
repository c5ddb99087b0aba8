/**
 * The sandbox's own word on money, read over HTTP from its inspection routes (never behind faults), and
 * small bounded helpers the proof suites share.
 */

/** One payment request the sandbox received (`GET /__sandbox/payments`). */
export interface UpstreamPayment {
  referenceId: string;
  referenceNo: string;
  status: 'PENDING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
  msisdn: string;
  callbackId: string;
  /** What the payment asked the customer for (the token's amount, never another). */
  amount: number;
}

/** Every payment the sandbox received, brought up to date (its scheduled outcomes applied). */
export async function upstreamPayments(sandboxUrl: string): Promise<UpstreamPayment[]> {
  const res = await fetch(`${sandboxUrl}/__sandbox/payments`);
  if (!res.ok) throw new Error(`GET /__sandbox/payments answered ${res.status}`);
  return ((await res.json()) as { payments: UpstreamPayment[] }).payments;
}

/** The attempt references' order: `ORDER-7-2` belongs to `ORDER-7`. */
export function orderOf(referenceNo: string): string {
  return referenceNo.replace(/-\d+$/, '');
}

/**
 * Answers a payment prompt on the sandbox's phone page as the customer would. True when the answer took
 * effect (303), false when the payment had already ended (409).
 */
export async function answerOnPhone(sandboxUrl: string, referenceId: string, answer: 'approve' | 'decline'): Promise<boolean> {
  const res = await fetch(`${sandboxUrl}/__sandbox/phone/payments/${encodeURIComponent(referenceId)}/${answer}`, {
    method: 'POST',
    redirect: 'manual',
  });
  await res.body?.cancel();
  if (res.status !== 303 && res.status !== 409) throw new Error(`phone ${answer} answered ${res.status}`);
  return res.status === 303;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `work` over `items` with at most `limit` in flight; resolves when all are done (rejects on the first throw). */
export async function inPool<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Resolves with `promise`, or with `fallback` once `ms` have passed (a bound, not an assertion). */
export function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

/**
 * Re-checks `mismatches()` until it returns none or `timeoutMs` passes, and returns the last list (the
 * caller asserts it is empty, so a failure shows what never converged).
 */
export async function settled<T>(mismatches: () => Promise<T[]>, timeoutMs: number, stepMs = 100): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await mismatches();
    if (found.length === 0 || Date.now() > deadline) return found;
    await sleep(stepMs);
  }
}

/** Groups `items` by `key` (Map.groupBy, which Node 20 lacks). */
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
