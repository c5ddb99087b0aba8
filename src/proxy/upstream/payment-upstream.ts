import {
  isProviderError,
  ProviderMalformedResponseError,
  ProviderNotFoundError,
  ProviderUnavailableError,
  ProviderValidationError,
} from '../../provider/errors.js';
import type { PaymentTransaction } from '../../provider/schemas/index.js';
import type { ProviderClient } from '../../provider/types.js';
import type { Logger } from 'pino';
import type { SendResult, UpstreamPayment } from '../order/events.js';

/**
 * The provider call options of the reconciler's own reads: under the background circuit, and sent once. The
 * reconciler's schedule is their retry (a read that failed as unavailable slows its poller): retried by the
 * client as well, each failed read of a provider in trouble was three calls to it, and a pass held its slot
 * through the backoff between them while other orders waited to be read.
 */
export const BACKGROUND = { background: true, retry: false } as const;

/** Which reference the provider's status path takes (the specification does not say). */
export type StatusReference = 'either' | 'referenceNo' | 'referenceId';

/** What one status read found. */
export type PaymentReadResult =
  | { kind: 'found'; tx: UpstreamPayment; referenceId?: string }
  /** `canSee`: the read was by referenceNo, so "not found" means the provider has no such payment. */
  | { kind: 'not-found'; canSee: boolean }
  | { kind: 'error'; err: unknown };

/** The body of one `POST /v1/payment`. */
export interface PaymentRequest {
  amount: number;
  referenceNo: string;
  payee: string;
  narration: string;
  msisdn: string;
  callbackId: string;
  payer: string;
}

/**
 * The payment gateway as the order sees it (DESIGN: know what a read can see): one send per try, whose
 * failure is classified by what it means for the money (never a guess), and status reads by the reference the
 * provider's status path takes (`provider.statusReference`): by `referenceId` first and by `referenceNo` after
 * a `0404` (`either`, the sandbox's), or only one of them.
 */
export class PaymentUpstream {
  /** Tries whose status path answered 0404 by referenceId (mode `either`): read by referenceNo from then on. */
  private readonly byReferenceNo = new Set<string>();
  /** Probes by referenceNo in flight, shared by concurrent requests of this process. */
  private readonly probes = new Map<string, Promise<PaymentReadResult>>();

  constructor(
    private readonly client: ProviderClient,
    private readonly logger: Logger,
    readonly mode: StatusReference,
  ) {}

  /** True when a try can be read without its referenceId. */
  get readsByReferenceNo(): boolean {
    return this.mode !== 'referenceId';
  }

  /** Sends a try's one request and says what came of it (with the error, when it failed). */
  async send(request: PaymentRequest): Promise<{ result: SendResult; err?: unknown }> {
    try {
      const { data } = await this.client.payments.initiate(request);
      return { result: { kind: 'accepted', referenceId: data.referenceId, amount: data.amount, charge: data.charge, totalAmount: data.totalAmount } };
    } catch (err) {
      const result = classify(err);
      this.logger.warn({ reference: request.referenceNo, result: result.kind, err: summary(err) }, 'payment initiation did not succeed');
      return { result, err };
    }
  }

  /**
   * Reads a try's payment by the references the mode allows. `background`: the reconciler's poll, under the
   * gateway's background circuit (its failures never refuse a customer's payment).
   */
  async read(reference: string, referenceId: string | null, background = false): Promise<PaymentReadResult> {
    const options = background ? BACKGROUND : undefined;
    try {
      if (referenceId && this.mode !== 'referenceNo' && !this.byReferenceNo.has(reference)) {
        try {
          const tx = (await this.client.payments.status(referenceId, options)).data;
          if (tx.reference && tx.reference !== reference) {
            this.logger.error({ reference, answered: tx.reference }, 'a status read by referenceId answered another reference; not taken');
            return { kind: 'error', err: new Error('status read answered another reference') };
          }
          return { kind: 'found', tx: upstreamOf(tx), referenceId };
        } catch (err) {
          if (!(err instanceof ProviderNotFoundError)) throw err;
          if (this.mode === 'referenceId') return { kind: 'not-found', canSee: false };
          this.byReferenceNo.add(reference);
        }
      }
      if (this.mode === 'referenceId') return { kind: 'not-found', canSee: false };
      return { kind: 'found', tx: upstreamOf((await this.client.payments.status(reference, options)).data) };
    } catch (err) {
      if (err instanceof ProviderNotFoundError) return { kind: 'not-found', canSee: true };
      readFailed(this.logger, err, { reference }, 'payment status read failed; reading on');
      return { kind: 'error', err };
    }
  }

  /** Reads a reference by referenceNo (an order new to the store), one read shared by concurrent callers. */
  probe(reference: string): Promise<PaymentReadResult> {
    let read = this.probes.get(reference);
    if (!read) {
      read = this.read(reference, null).finally(() => this.probes.delete(reference));
      this.probes.set(reference, read);
    }
    return read;
  }

  /** Reads by a referenceId someone gave (a callback's body, the operator): taken only if it answers `reference`. */
  async readById(reference: string, referenceId: string): Promise<PaymentReadResult> {
    try {
      const tx = (await this.client.payments.status(referenceId)).data;
      if (tx.reference !== reference) return { kind: 'not-found', canSee: false };
      return { kind: 'found', tx: upstreamOf(tx), referenceId };
    } catch (err) {
      if (err instanceof ProviderNotFoundError) return { kind: 'not-found', canSee: false };
      return { kind: 'error', err };
    }
  }

  /** A settled try's read path is remembered no longer. */
  forget(reference: string): void {
    this.byReferenceNo.delete(reference);
  }
}

/**
 * What a failed initiation means for the money (never a guess):
 * - refused in words (an error code of its own, such as INSUFFICIENT_FUNDS): nothing was created;
 * - refused as `0400 Bad Request` (no words): it may mean "this reference exists": read before deciding;
 * - a timeout, a reset, a 5xx (503 included: a gateway may pass a request on and lose its answer), an
 *   unreadable answer, anything outside the client's taxonomy: it may exist;
 * - certainly never processed (circuit open, nothing sent, credentials refused, rate limited): not sent.
 */
export function classify(err: unknown): SendResult {
  if (err instanceof ProviderValidationError) {
    if (!err.sent) return { kind: 'not-sent' };
    return err.code && err.code !== '0400' ? { kind: 'refused', failureCode: err.code } : { kind: 'refused-generic' };
  }
  if (!isProviderError(err) || err instanceof ProviderMalformedResponseError) return { kind: 'unknown' };
  if (err instanceof ProviderUnavailableError) {
    if (err.outcomeUnknown || err.reason === 'http') return { kind: 'unknown' };
    return { kind: 'not-sent' };
  }
  return { kind: 'not-sent' };
}

function upstreamOf(tx: PaymentTransaction): UpstreamPayment {
  return {
    reference: tx.reference,
    status: tx.status,
    amount: tx.amount,
    charge: tx.charge,
    totalAmount: tx.totalAmount,
    payee: tx.payee,
    narration: tx.narration,
    msisdn: tx.msisdn,
    completedAt: tx.completedAt === null ? null : normaliseIso(tx.completedAt),
  };
}

function normaliseIso(value: string): string | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * Logs a status read that failed and will be tried again: at debug when the provider client has logged the
 * call itself (a provider error: its operation, status and reason, at warn), so an outage under thousands of
 * pending payments writes one line a failed read, not two; at warn for anything else.
 */
export function readFailed(logger: Logger, err: unknown, subject: Record<string, string>, message: string): void {
  if (isProviderError(err)) logger.debug({ ...subject, err: summary(err) }, message);
  else logger.warn({ ...subject, err: summary(err) }, message);
}

/** What of an error is safe in a log line (`errorCode`, not `code`: the logger redacts every `code`). */
export function summary(err: unknown): Record<string, unknown> {
  if (!isProviderError(err)) return { type: err instanceof Error ? err.name : typeof err };
  const reason = err instanceof ProviderUnavailableError ? err.reason : undefined;
  return { type: err.name, status: err.status, errorCode: err.code, operation: err.operation, reason };
}
