// What a failed provider call's transport error means: not sent, timed out, or sent with its outcome unknown.
import type { Deadline } from './deadline.js';
import { ProviderMalformedResponseError, ProviderUnavailableError } from './errors.js';
import type { RequestSpec } from './http.js';
import { AnswerTooLarge, MAX_ANSWER_BYTES, NeverSent } from './transport.js';

/** Connection errors after which nothing can have reached the provider. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/** Maps a fetch or body-read failure to an error; a caller's abort is passed through as its reason. */
export function transportError(spec: RequestSpec<unknown>, caught: unknown, deadline: Deadline, totalMs: number): unknown {
  if (spec.signal?.aborted) return spec.signal.reason;
  if (caught instanceof AnswerTooLarge) {
    return new ProviderMalformedResponseError({
      operation: spec.operation,
      status: caught.status,
      message: `The provider's answer to ${spec.operation} is larger than ${MAX_ANSWER_BYTES} bytes`,
    });
  }
  const isGet = spec.method === 'GET';
  if (deadline.timedOut) {
    const neverSent = caught instanceof NeverSent;
    return new ProviderUnavailableError({
      operation: spec.operation,
      reason: 'timeout',
      outcomeUnknown: !isGet && !neverSent,
      message: neverSent
        ? `No connection to the provider for ${spec.operation} within ${totalMs} ms`
        : `The provider did not answer ${spec.operation} within ${totalMs} ms`,
      cause: neverSent ? caught.reason : caught,
    });
  }
  const code = causeCode(caught);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new ProviderUnavailableError({
      operation: spec.operation,
      reason: 'timeout',
      outcomeUnknown: false,
      message: `Connecting to the provider for ${spec.operation} timed out`,
      cause: caught,
    });
  }
  return new ProviderUnavailableError({
    operation: spec.operation,
    reason: 'network',
    outcomeUnknown: !isGet && !(code !== undefined && NOT_SENT_CODES.has(code)),
    message: `The provider could not be reached for ${spec.operation}${code ? ` (${code})` : ''}`,
    cause: caught,
  });
}

/** The first `code` along an error's cause chain (undici puts it one or two levels down). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
