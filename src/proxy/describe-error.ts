/** What of an error is safe and useful in a log line. */
export function describeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const extra = err as Error & { code?: unknown; status?: unknown; operation?: unknown; reason?: unknown };
    return { type: err.name, message: err.message, code: extra.code, status: extra.status, operation: extra.operation, reason: extra.reason };
  }
  return { type: typeof err };
}
