import { ProviderNotFoundError } from '../../provider/errors.js';
import type { PaymentTransaction } from '../../provider/schemas/index.js';
import type { ProxyContext } from '../context.js';
import type { PaymentRecord } from '../payments/payment-record.js';
import { describeError } from './relay-core.js';

/** What a status read of an attempt found upstream. */
export type UpstreamRead = { kind: 'found'; tx: PaymentTransaction } | { kind: 'not-found' } | { kind: 'error'; err: unknown };

/**
 * Status reads of attempts upstream (DESIGN: status reads by reference): by the provider's referenceId
 * first, then by our referenceNo once the referenceId path answered 0404, which is remembered per attempt.
 * A read never throws: it says what it found, that nothing was found, or that it failed.
 */
export class UpstreamReader {
  /** Attempts whose status path answered 0404 by referenceId: read by referenceNo from then on. */
  private readonly byReferenceNo = new Set<string>();
  /** Reads by referenceNo in flight, for `readShared`. */
  private readonly inFlight = new Map<string, Promise<UpstreamRead>>();

  constructor(private readonly ctx: ProxyContext) {}

  async read(record: Pick<PaymentRecord, 'reference' | 'referenceId' | 'phase'>): Promise<UpstreamRead> {
    const { client, logger } = this.ctx;
    try {
      if (record.referenceId && !this.byReferenceNo.has(record.reference)) {
        try {
          return { kind: 'found', tx: (await client.payments.status(record.referenceId)).data };
        } catch (err) {
          if (!(err instanceof ProviderNotFoundError)) throw err;
          this.byReferenceNo.add(record.reference);
        }
      }
      return { kind: 'found', tx: (await client.payments.status(record.reference)).data };
    } catch (err) {
      if (err instanceof ProviderNotFoundError) {
        if (record.phase === 'known') logger.warn({ reference: record.reference }, 'a known payment reads as not found upstream');
        return { kind: 'not-found' };
      }
      logger.warn({ reference: record.reference, err: describeError(err) }, 'payment status read failed; reading on');
      return { kind: 'error', err };
    }
  }

  /**
   * Reads a reference by referenceNo, sharing one request among concurrent callers: a burst of POSTs on a
   * new order all probe its first reference, and one read answers them all.
   */
  readShared(reference: string): Promise<UpstreamRead> {
    let read = this.inFlight.get(reference);
    if (!read) {
      read = this.read({ reference, referenceId: null, phase: 'unknown' }).finally(() => this.inFlight.delete(reference));
      this.inFlight.set(reference, read);
    }
    return read;
  }

  /** The attempt is settled: its read path is remembered no longer. */
  forget(reference: string): void {
    this.byReferenceNo.delete(reference);
  }
}
