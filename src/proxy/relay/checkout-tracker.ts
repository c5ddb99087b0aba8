import type { CheckoutSnapshot, CheckoutViewStatus } from '../../protocol/index.js';
import {
  applyCheckoutStatus,
  isFinalCheckoutStatus,
  toCheckoutSnapshot,
  type CheckoutRecord,
} from '../payments/checkout-record.js';
import { readJson, updateJson, type UpdateResult } from '../payments/json-record.js';
import { KEYS, RECORD_TTL_MS, subject } from '../payments/keys.js';
import { notifyCheckout } from './notify.js';
import type { TickResult } from './poller-pool.js';
import { describeError, type RelayCore } from './relay-core.js';

/** The relay's side of checkout sessions: stored records, their changes, and the poll. */
export class CheckoutTracker {
  constructor(private readonly core: RelayCore) {}

  /** The latest snapshot by checkoutId, or by the merchant's reference (its latest session). */
  async get(idOrReference: string): Promise<CheckoutSnapshot | null> {
    let record = await this.read(idOrReference);
    if (!record) {
      const checkoutId = await this.core.ctx.store.get(KEYS.checkoutByReference(idOrReference));
      record = checkoutId ? await this.read(checkoutId) : null;
    }
    if (!record) return null;
    if (!isFinalCheckoutStatus(record.status)) this.track(record.checkoutId);
    return toCheckoutSnapshot(record);
  }

  read(checkoutId: string): Promise<CheckoutRecord | null> {
    return readJson<CheckoutRecord>(this.core.ctx.store, KEYS.checkout(checkoutId));
  }

  /** Stores a new session, indexes it by reference and as pending, reports it, and starts polling. */
  async create(record: CheckoutRecord): Promise<void> {
    const { store } = this.core.ctx;
    await store.set(KEYS.checkout(record.checkoutId), JSON.stringify(record), RECORD_TTL_MS);
    await store.set(KEYS.checkoutByReference(record.reference), record.checkoutId, RECORD_TTL_MS);
    await store.addToSet(KEYS.pending, subject.checkout(record.checkoutId));
    this.finish(record, null);
    this.track(record.checkoutId);
  }

  /** Changes a record (compare-and-set); a visible change bumps the sequence, is published and reported. */
  async update(checkoutId: string, change: (current: CheckoutRecord) => CheckoutRecord | null): Promise<UpdateResult<CheckoutRecord>> {
    const now = this.core.ctx.now();
    const result = await updateJson<CheckoutRecord>(
      this.core.ctx.store,
      KEYS.checkout(checkoutId),
      (current) => {
        const next = change(current);
        return next ? { ...next, seq: current.seq + 1, updatedAt: now } : null;
      },
      RECORD_TTL_MS,
    );
    if (result.outcome === 'updated') {
      this.core.changed(subject.checkout(checkoutId));
      if (result.previous.status !== result.value.status) this.finish(result.value, result.previous.status);
    }
    return result;
  }

  track(checkoutId: string): void {
    this.core.pool.ensure(subject.checkout(checkoutId), () => this.tick(checkoutId));
  }

  /** One poll of one session. */
  async tick(checkoutId: string): Promise<TickResult> {
    const { ctx } = this.core;
    let record = await this.read(checkoutId);
    if (!record) {
      await ctx.store.removeFromSet(KEYS.pending, subject.checkout(checkoutId));
      return 'done';
    }
    if (isFinalCheckoutStatus(record.status)) {
      await this.finish(record, null);
      return 'done';
    }
    try {
      const result = await ctx.client.checkout.status(checkoutId);
      const updated = await this.update(checkoutId, (c) => (isFinalCheckoutStatus(c.status) ? null : applyCheckoutStatus(c, result)));
      if (updated.outcome !== 'missing') record = updated.value;
    } catch (err) {
      ctx.logger.warn({ checkoutId, err: describeError(err) }, 'checkout status read failed; polling on');
    }
    if (isFinalCheckoutStatus(record.status)) return 'done';
    if (ctx.now() > record.deadlineAt) {
      // The provider never reported an end: stop polling; the last status stands.
      ctx.logger.warn({ checkoutId }, 'checkout still not final at the relay deadline; no longer polled');
      await ctx.store.removeFromSet(KEYS.pending, subject.checkout(checkoutId));
      return 'done';
    }
    return 'continue';
  }

  private finish(record: CheckoutRecord, previous: CheckoutViewStatus | null): Promise<void> {
    const key = subject.checkout(record.checkoutId);
    const final = isFinalCheckoutStatus(record.status);
    return new Promise<void>((resolve) => {
      this.core.inOrder(key, async () => {
        try {
          await notifyCheckout(this.core.ctx, toCheckoutSnapshot(record), previous, final);
          if (final) await this.core.ctx.store.removeFromSet(KEYS.pending, key);
        } finally {
          resolve();
        }
      });
    });
  }
}
