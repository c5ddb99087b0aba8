import type { PaymentSnapshot } from '../../protocol/index.js';
import { ProviderNotFoundError } from '../../provider/errors.js';
import type { PaymentTransaction } from '../../provider/schemas/index.js';
import { currentAttempt, type OrderRecord } from '../payments/attempts.js';
import { readJson, updateJson, type UpdateResult } from '../payments/json-record.js';
import { KEYS, RECORD_TTL_MS, subject } from '../payments/keys.js';
import { setAttemptPhase } from '../payments/orders.js';
import {
  applyTransaction,
  isFinalPaymentStatus,
  NOT_FOUND_READS_TO_SETTLE,
  sameView,
  toPaymentSnapshot,
  type PaymentRecord,
} from '../payments/payment-record.js';
import { notifyPayment } from './notify.js';
import type { TickResult } from './poller-pool.js';
import { describeError, type RelayCore } from './relay-core.js';

/**
 * The relay's side of payments: the stored record of each attempt, its changes (sequence, events,
 * hooks), and the poll that reconciles it with the provider until a final state or the deadline.
 */
export class PaymentTracker {
  /** Attempts whose status path answered 0404 by referenceId: read by referenceNo from then on. */
  private readonly byReferenceNo = new Set<string>();

  constructor(private readonly core: RelayCore) {}

  /** The latest snapshot by attempt reference, or by order reference (its latest attempt). */
  async get(referenceNo: string): Promise<PaymentSnapshot | null> {
    const direct = await this.read(referenceNo);
    if (direct) return this.snapshotOf(direct);
    const order = await readJson<OrderRecord>(this.core.ctx.store, KEYS.order(referenceNo));
    const latest = currentAttempt(order) ?? order?.attempts.at(-1);
    const record = latest ? await this.read(latest.reference) : null;
    return record ? this.snapshotOf(record) : null;
  }

  /** The stored record of an attempt. */
  read(reference: string): Promise<PaymentRecord | null> {
    return readJson<PaymentRecord>(this.core.ctx.store, KEYS.payment(reference));
  }

  /**
   * Stores a new attempt (before its initiation is sent), its callback id, and its place in the pending
   * index a restarted process resumes from.
   */
  async create(record: PaymentRecord): Promise<void> {
    const { store } = this.core.ctx;
    await store.set(KEYS.payment(record.reference), JSON.stringify(record), RECORD_TTL_MS);
    await store.set(KEYS.callback(record.callbackId), record.reference, RECORD_TTL_MS);
    await store.addToSet(KEYS.pending, subject.payment(record.reference));
  }

  /**
   * Changes a record (compare-and-set, so instances never lose an update). A change the browser can see
   * bumps the sequence and is published; the first report and every status change go to the hooks.
   */
  async update(reference: string, change: (current: PaymentRecord) => PaymentRecord | null): Promise<UpdateResult<PaymentRecord>> {
    const now = this.core.ctx.now();
    const result = await updateJson<PaymentRecord>(
      this.core.ctx.store,
      KEYS.payment(reference),
      (current) => {
        const next = change(current);
        if (!next) return null;
        return sameView(current, next) ? next : { ...next, seq: current.seq + 1, updatedAt: now };
      },
      RECORD_TTL_MS,
    );
    if (result.outcome === 'updated') this.afterChange(result.previous, result.value);
    return result;
  }

  /** Makes sure this process polls `reference` (no-op when it already does or the payment is final). */
  track(reference: string): void {
    this.core.pool.ensure(subject.payment(reference), () => this.tick(reference));
  }

  /** One poll of one attempt. */
  async tick(reference: string): Promise<TickResult> {
    const { ctx, options } = this.core;
    let record = await this.read(reference);
    if (!record) {
      await ctx.store.removeFromSet(KEYS.pending, subject.payment(reference));
      return 'done';
    }
    if (isFinalPaymentStatus(record.status)) {
      // Resumed after a restart: finish what the previous process may not have (claims make it once).
      await this.finish(record, null);
      return 'done';
    }
    const now = ctx.now();
    if (record.phase === 'initiating') {
      if (now - record.createdAt <= options.initiationLeaseMs) return 'continue';
      record = await this.markUnknown(record);
    }
    const read = await this.readUpstream(record);
    if (read.kind === 'found') {
      const tx = read.tx;
      record = this.valueOf(await this.update(reference, (c) => (isFinalPaymentStatus(c.status) ? null : applyTransaction(c, tx, now))), record);
    } else if (read.kind === 'not-found' && record.phase === 'unknown') {
      record = await this.settleNotFound(record);
    }
    if (!isFinalPaymentStatus(record.status) && now > record.deadlineAt) {
      record = this.valueOf(
        await this.update(reference, (c) => (c.status === 'PENDING' ? { ...c, status: 'TIMED_OUT' } : null)),
        record,
      );
    }
    return isFinalPaymentStatus(record.status) ? 'done' : 'continue';
  }

  /** An initiation whose process vanished: its outcome is unknown from now on. */
  async markUnknown(record: PaymentRecord): Promise<PaymentRecord> {
    const result = await this.update(record.reference, (c) => (c.phase === 'initiating' ? { ...c, phase: 'unknown' } : null));
    await setAttemptPhase(this.core.ctx.store, record.orderReference, record.attempt, 'sent');
    return this.valueOf(result, record);
  }

  private async settleNotFound(record: PaymentRecord): Promise<PaymentRecord> {
    const { ctx, options } = this.core;
    const graceOver = ctx.now() - record.createdAt >= options.unknownGraceMs;
    const result = await this.update(record.reference, (c) => {
      if (c.phase !== 'unknown') return null;
      const reads = c.notFoundReads + 1;
      if (reads < NOT_FOUND_READS_TO_SETTLE || !graceOver) return { ...c, notFoundReads: reads };
      // Never created upstream: the attempt is void (it does not count against maxAttempts).
      return { ...c, notFoundReads: reads, phase: 'void', status: 'FAILED', failureCode: 'UPSTREAM_UNAVAILABLE', attemptsLeft: c.attemptsLeft + 1 };
    });
    const next = this.valueOf(result, record);
    if (next.phase === 'void') await setAttemptPhase(this.core.ctx.store, next.orderReference, next.attempt, 'void');
    return next;
  }

  /** Status by referenceId first, then by referenceNo on a 0404 (DESIGN: status reads by reference). */
  private async readUpstream(record: PaymentRecord): Promise<{ kind: 'found'; tx: PaymentTransaction } | { kind: 'not-found' } | { kind: 'error' }> {
    const { client, logger } = this.core.ctx;
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
      logger.warn({ reference: record.reference, err: describeError(err) }, 'payment status read failed; polling on');
      return { kind: 'error' };
    }
  }

  private afterChange(previous: PaymentRecord, next: PaymentRecord): void {
    if (next.seq !== previous.seq) this.core.changed(subject.payment(next.reference));
    if (next.phase === 'initiating') return;
    const firstReport = previous.phase === 'initiating';
    if (firstReport && next.phase === 'void') {
      // Never reached the provider: nothing to report, nothing to resume.
      this.core.background(this.core.ctx.store.removeFromSet(KEYS.pending, subject.payment(next.reference)));
      return;
    }
    if (!firstReport && previous.status === next.status) return;
    this.finish(next, firstReport ? null : previous.status);
  }

  /** Hooks (and receipts) of a new status, in order; a final record then leaves the pending index. */
  private finish(record: PaymentRecord, previous: PaymentRecord['status'] | null): Promise<void> {
    const key = subject.payment(record.reference);
    return new Promise<void>((resolve) => {
      this.core.inOrder(key, async () => {
        try {
          await notifyPayment(this.core.ctx, record, previous);
          if (isFinalPaymentStatus(record.status)) {
            await this.core.ctx.store.removeFromSet(KEYS.pending, key);
            this.byReferenceNo.delete(record.reference);
          }
        } finally {
          resolve();
        }
      });
    });
  }

  private valueOf(result: UpdateResult<PaymentRecord>, fallback: PaymentRecord): PaymentRecord {
    return result.outcome === 'missing' ? fallback : result.value;
  }

  private snapshotOf(record: PaymentRecord): PaymentSnapshot {
    if (!isFinalPaymentStatus(record.status)) this.track(record.reference);
    return toPaymentSnapshot(record);
  }
}
