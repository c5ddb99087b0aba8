/**
 * The store did not answer (Redis down, timing out, its connection closed). Every store method of ours
 * throws this rather than the client library's own error, so the proxy can tell an outage (503, retryable)
 * from a bug (500) on every route.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';

  constructor(
    /** The store operation that failed (`get`, `compareAndSet`…). */
    readonly operation: string,
    cause: unknown,
  ) {
    super(`store ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
