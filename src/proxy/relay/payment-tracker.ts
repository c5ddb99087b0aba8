import type { PaymentSnapshot, PaymentViewStatus } from '../../protocol/index.js';
import { currentAttempt, type OrderRecord } from '../payments/attempts.js';
import { readJson, updateJson, type UpdateResult } from '../payments/json-record.js';
import { KEYS, RECORD_TTL_MS, subject } from '../payments/keys.js';
import type { MethodState } from '../payments/order-method.js';
import { setAttemptPhase } from '../payments/orders.js';
import {
  applyTransaction,
  isReconciled,
  NOT_FOUND_READS_TO_SETTLE,
  sameView,
  toPaymentSnapshot,
  type PaymentRecord,
} from '../payments/payment-record.js';
import { BoundedMap } from '../bounded-map.js';
import { paymentMessage } from './notify.js';
import type { TickResult } from './poller-pool.js';
import { restorePayment } from './restore.js';
import type { RelayCore } from './relay-core.js';
import { UpstreamReader } from './upstream-read.js';

/**
 * The relay's side of payments: the stored record of each attempt, its changes (sequence, events,
 * notifications through the outbox), and the reconciler's reads, which go on until the money settles:
 * past the page's deadline (TIMED_OUT) at a slow cadence for the reconcile window, and after a lost
 * record (restored from this process's last copy).
 */
export class PaymentTracker {
  /** This process's last copy of every record it reconciles: what a store flush or eviction cannot take. */
  private readonly copies = new Map<string, PaymentRecord>();
  /** Attempts this process sent whose answer it could not write down (a store error): read at once. */
  private readonly sent = new Set<string>();
  /** The status whose notification this process last recorded, per attempt (one store write per change). */
  private readonly recorded = new Map<string, PaymentViewStatus>();
  /** When a customer's look last woke the slow reader of an attempt, per attempt (see `look`). */
  private readonly looked = new BoundedMap<string, number>(10_000);

  /** Status reads upstream by reference (by referenceId, then by referenceNo after a 0404). */
  readonly upstream: UpstreamReader;

  constructor(private readonly core: RelayCore) {
    this.upstream = new UpstreamReader(core.ctx);
  }

  /**
   * The order's payment, by the merchant's order reference: its completed attempt if there is one, else
   * its current one, else its last (refused or void) one. Never reads the reference as an attempt's.
   */
  async get(orderReference: string): Promise<PaymentSnapshot | null> {
    const order = await readJson<OrderRecord>(this.core.ctx.store, KEYS.order(orderReference));
    if (!order) return null;
    const records = (await Promise.all(order.attempts.map((a) => this.read(a.reference)))).filter(
      (r): r is PaymentRecord => r !== null && r.orderReference === orderReference,
    );
    const current = currentAttempt(order);
    const record =
      records.find((r) => r.status === 'COMPLETED') ??
      records.find((r) => r.reference === current?.reference) ??
      records.sort((a, b) => b.attempt - a.attempt)[0];
    return record ? this.snapshotOf(record) : null;
  }

  /** One attempt's payment, by its attempt reference (`ORDER-123-1`). */
  async getAttempt(reference: string): Promise<PaymentSnapshot | null> {
    const record = await this.read(reference);
    return record ? this.snapshotOf(record) : null;
  }

  /** Where the order stands on mobile money, for the one-way-to-pay rule; null when it has no attempt. */
  async methodState(orderReference: string): Promise<MethodState | null> {
    const order = await readJson<OrderRecord>(this.core.ctx.store, KEYS.order(orderReference));
    if (!order || order.attempts.length === 0) return null;
    const records = (await Promise.all(order.attempts.map((a) => this.read(a.reference)))).filter((r): r is PaymentRecord => r !== null);
    const completed = records.find((r) => r.status === 'COMPLETED');
    if (completed) return { free: false, status: 'COMPLETED' };
    const current = currentAttempt(order);
    if (current?.phase === 'initiating') return { free: false, status: 'PENDING' };
    const record = current ? records.find((r) => r.reference === current.reference) : undefined;
    if (current && !record) return { free: false, status: 'PENDING' };
    if (!record || record.status === 'FAILED' || record.status === 'CANCELLED' || record.status === 'VOID') return { free: true, status: record?.status ?? 'VOID' };
    return { free: false, status: record.status };
  }

  /** The stored record of an attempt. */
  read(reference: string): Promise<PaymentRecord | null> {
    return readJson<PaymentRecord>(this.core.ctx.store, KEYS.payment(reference));
  }

  /**
   * Stores a new attempt (before its initiation is sent), its callback id, its place in the pending set the
   * reconciler sweeps, and in its number's in-flight set.
   */
  async create(fresh: PaymentRecord): Promise<void> {
    const { store } = this.core.ctx;
    // A void reference sent again: its sequence goes on (streams resume past it) and its sends are counted.
    const earlier = await this.read(fresh.reference);
    const record = earlier ? { ...fresh, seq: earlier.seq + 1, sends: (earlier.sends ?? 1) + 1 } : fresh;
    this.recorded.delete(record.reference);
    await store.set(KEYS.payment(record.reference), JSON.stringify(record), RECORD_TTL_MS);
    await store.set(KEYS.callback(record.callbackId), record.reference, RECORD_TTL_MS);
    await store.addToSet(KEYS.pending, subject.payment(record.reference));
    await store.addToSet(KEYS.inFlight(record.msisdn), record.reference);
    this.copies.set(record.reference, record);
  }

  /** Stores an attempt found upstream by a status read (never sent by this process), reports it, and reconciles it. */
  async adopt(record: PaymentRecord): Promise<void> {
    await this.create(record);
    this.notify(record, null);
    this.trackNow(record.reference);
  }

  /**
   * Changes a record (compare-and-set, so instances never lose an update). A change the browser can see
   * bumps the sequence and is published; the first report and every status change go to the outbox.
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
    if (result.outcome === 'updated') {
      if (this.copies.has(reference) || !isReconciled(result.value)) this.copies.set(reference, result.value);
      this.afterChange(result.previous, result.value);
    }
    return result;
  }

  /** Makes sure this process reconciles `reference` (no-op when it already does). */
  track(reference: string): void {
    this.core.pool.ensure(subject.payment(reference), () => this.tick(reference));
  }

  /** As `track`, and a poller already sleeping on the reference (a void read slowly, now sent again) reads now. */
  trackNow(reference: string): void {
    if (!this.core.pool.ensure(subject.payment(reference), () => this.tick(reference))) this.core.pool.wake(subject.payment(reference));
  }

  /**
   * A customer looks at an attempt (a page's read, or its stream opening after a reload). Past the page's
   * deadline the attempt is read only once a minute, so a payment approved late would show up to a minute
   * late: the look makes it read now, at most once per `maxIntervalMs` per attempt in this process (the
   * ceiling of a watched payment's cadence), so a page reading in a loop never becomes a loop of reads.
   */
  look(record: PaymentRecord): void {
    if (isReconciled(record)) return;
    const late = this.core.ctx.now() > record.deadlineAt || record.status === 'VOID';
    const last = this.looked.get(record.reference);
    const now = Date.now();
    if (!late || (last !== undefined && now - last < this.core.options.maxIntervalMs)) return this.track(record.reference);
    this.looked.set(record.reference, now);
    this.trackNow(record.reference);
  }

  /** One reconciling read of one attempt. */
  async tick(reference: string): Promise<TickResult> {
    const { ctx, options } = this.core;
    let record = await this.read(reference);
    if (!record) {
      const copy = this.copies.get(reference);
      if (!copy) {
        await ctx.store.removeFromSet(KEYS.pending, subject.payment(reference));
        return 'done';
      }
      // The store lost it (flushed, evicted, a new empty Redis): put back what this process knows.
      ctx.logger.warn({ reference }, 'payment record missing from the store; restored from this process');
      await restorePayment(ctx, copy);
      this.recorded.delete(reference);
      record = copy;
    }
    this.copies.set(reference, record);
    if (isReconciled(record)) return this.finish(record);
    const now = ctx.now();
    if (record.phase === 'initiating') {
      // Still in flight, unless its process is gone (lease passed) or is this one and knows it was sent.
      const sentHere = this.sent.has(reference);
      if (!sentHere && now - record.createdAt <= options.initiationLeaseMs) return 'continue';
      record = await this.markUnknown(record);
    }
    this.sent.delete(reference);
    const read = await this.upstream.read(record);
    if (read.kind === 'found') {
      const tx = read.tx;
      record = this.valueOf(await this.update(reference, (c) => (isReconciled(c) ? null : applyTransaction(c, tx, now))), record);
    } else if (read.kind === 'not-found' && record.phase === 'unknown') {
      record = await this.settleNotFound(record);
    }
    if (record.status === 'PENDING' && now > record.deadlineAt) {
      record = this.valueOf(await this.update(reference, (c) => (c.status === 'PENDING' ? { ...c, status: 'TIMED_OUT' } : null)), record);
    }
    if (isReconciled(record)) return this.finish(record);
    await this.ensureRecorded(record);
    if (now - record.createdAt > options.reconcileWindowMs) {
      ctx.logger.error({ reference, status: record.status }, 'payment still not settled at the end of the reconcile window; no longer read');
      await ctx.store.removeFromSet(KEYS.pending, subject.payment(reference));
      this.forget(reference);
      return 'done';
    }
    return now > record.deadlineAt || record.status === 'VOID' ? options.lateIntervalMs : 'continue';
  }

  /** The provider took this attempt but the store did not take the answer: reconcile it now, not after the lease. */
  sentButNotRecorded(reference: string): void {
    this.sent.add(reference);
    this.trackNow(reference);
  }

  /** An initiation whose process vanished: its outcome is unknown from now on. */
  async markUnknown(record: PaymentRecord): Promise<PaymentRecord> {
    const result = await this.update(record.reference, (c) => (c.phase === 'initiating' ? { ...c, phase: 'unknown' } : null));
    await setAttemptPhase(this.core.ctx.store, record.orderReference, record.attempt, 'sent');
    return this.valueOf(result, record);
  }

  /** An unknown outcome read `0404` twice after the grace period: void by inference (read on slowly). */
  private async settleNotFound(record: PaymentRecord): Promise<PaymentRecord> {
    const { ctx, options } = this.core;
    const graceOver = ctx.now() - record.createdAt >= options.unknownGraceMs;
    const result = await this.update(record.reference, (c) => {
      if (c.phase !== 'unknown') return null;
      const reads = c.notFoundReads + 1;
      if (reads < NOT_FOUND_READS_TO_SETTLE || !graceOver) return { ...c, notFoundReads: reads };
      return { ...c, notFoundReads: reads, phase: 'void', status: 'VOID', voidCertain: false, attemptsLeft: c.attemptsLeft + 1 };
    });
    const next = this.valueOf(result, record);
    if (next.phase === 'void') await setAttemptPhase(ctx.store, next.orderReference, next.attempt, 'void');
    return next;
  }

  private afterChange(previous: PaymentRecord, next: PaymentRecord): void {
    if (next.seq !== previous.seq) this.core.changed(subject.payment(next.reference));
    if (next.phase === 'initiating') return;
    const firstReport = previous.phase === 'initiating';
    if (firstReport && next.status === 'VOID') {
      // Never reached the provider: nothing to report; nothing to reconcile unless it may land late.
      if (next.voidCertain !== false) this.core.background(this.finish(next));
      return;
    }
    if (!firstReport && previous.status === next.status) return;
    this.notify(next, firstReport ? null : previous.status);
  }

  /** Records the state change in the outbox (in order per attempt); a failure is made good by the next read. */
  private notify(record: PaymentRecord, previous: PaymentViewStatus | null): void {
    this.core.inOrder(subject.payment(record.reference), async () => {
      await this.core.outbox.record(paymentMessage(record, toPaymentSnapshot(record), previous, this.core.ctx.now()));
      this.recorded.set(record.reference, record.status);
    });
  }

  /** Records the current status's notification unless this process already did (idempotent in the outbox). */
  private async ensureRecorded(record: PaymentRecord): Promise<void> {
    if (record.phase === 'initiating' || this.recorded.get(record.reference) === record.status) return;
    // A void is reported only as a change (unknown, then void); never as a first report.
    if (record.status === 'VOID') return;
    await this.core.outbox.record(paymentMessage(record, toPaymentSnapshot(record), null, this.core.ctx.now()));
    this.recorded.set(record.reference, record.status);
  }

  /** A reconciled attempt: its notification recorded, then out of the pending and in-flight sets. */
  private async finish(record: PaymentRecord): Promise<TickResult> {
    const { store } = this.core.ctx;
    await this.ensureRecorded(record);
    // A void or refused reference may have been sent again meanwhile: then it is not done at all.
    const current = await this.read(record.reference);
    if (current && !isReconciled(current)) return 'continue';
    await store.removeFromSet(KEYS.inFlight(record.msisdn), record.reference);
    await store.removeFromSet(KEYS.pending, subject.payment(record.reference));
    this.forget(record.reference);
    return 'done';
  }

  private forget(reference: string): void {
    this.copies.delete(reference);
    this.recorded.delete(reference);
    this.upstream.forget(reference);
    this.looked.delete(reference);
  }

  private valueOf(result: UpdateResult<PaymentRecord>, fallback: PaymentRecord): PaymentRecord {
    return result.outcome === 'missing' ? fallback : result.value;
  }

  private snapshotOf(record: PaymentRecord): PaymentSnapshot {
    // The merchant's backend asking is a look too: a late payment is read now.
    this.look(record);
    return toPaymentSnapshot(record);
  }
}
