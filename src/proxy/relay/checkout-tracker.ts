import type { CheckoutSnapshot, CheckoutViewStatus } from '../../protocol/index.js';
import {
  applyCheckoutStatus,
  isFinalCheckoutStatus,
  toCheckoutSnapshot,
  type CheckoutRecord,
} from '../payments/checkout-record.js';
import { readJson, updateJson, type UpdateResult } from '../payments/json-record.js';
import { KEYS, RECORD_TTL_MS, subject } from '../payments/keys.js';
import type { MethodState } from '../payments/order-method.js';
import { checkoutMessage } from './notify.js';
import type { TickResult } from './poller-pool.js';
import { describeError, type RelayCore } from './relay-core.js';

/** The relay's side of checkout sessions: stored records, their changes, and the poll. */
export class CheckoutTracker {
  constructor(private readonly core: RelayCore) {}

  /**
   * The order's checkout, by the merchant's reference: its completed session if there is one, else its
   * latest. Never reads the reference as a checkoutId.
   */
  async get(reference: string): Promise<CheckoutSnapshot | null> {
    const record = await this.forOrder(reference);
    return record ? this.snapshotOf(record) : null;
  }

  /** One session by checkoutId. */
  async getSession(checkoutId: string): Promise<CheckoutSnapshot | null> {
    const record = await this.read(checkoutId);
    return record ? this.snapshotOf(record) : null;
  }

  /** The sessions of an order reference, oldest first. */
  async sessions(reference: string): Promise<CheckoutRecord[]> {
    const order = await readJson<CheckoutOrder>(this.core.ctx.store, KEYS.checkoutOrder(reference));
    const records = await Promise.all((order?.sessions ?? []).map((id) => this.read(id)));
    return records.filter((r): r is CheckoutRecord => r !== null && r.reference === reference);
  }

  /** Where the order stands on the hosted checkout, for the one-way-to-pay rule; null when it has no session. */
  async methodState(reference: string): Promise<MethodState | null> {
    const sessions = await this.sessions(reference);
    if (sessions.length === 0) return null;
    const now = this.core.ctx.now();
    const completed = sessions.find((s) => s.status === 'completed');
    if (completed) return { free: false, status: 'completed' };
    const live = sessions.find((s) => isLiveCheckout(s, now));
    return live ? { free: false, status: live.status } : { free: true, status: sessions.at(-1)!.status };
  }

  private async forOrder(reference: string): Promise<CheckoutRecord | null> {
    const sessions = await this.sessions(reference);
    return sessions.find((s) => s.status === 'completed') ?? sessions.at(-1) ?? null;
  }

  private snapshotOf(record: CheckoutRecord): CheckoutSnapshot {
    if (!isFinalCheckoutStatus(record.status)) this.track(record.checkoutId);
    return toCheckoutSnapshot(record);
  }

  read(checkoutId: string): Promise<CheckoutRecord | null> {
    return readJson<CheckoutRecord>(this.core.ctx.store, KEYS.checkout(checkoutId));
  }

  /** Stores a new session and its place in the pending set, reports it, and starts polling. */
  async create(record: CheckoutRecord): Promise<void> {
    const { store } = this.core.ctx;
    await store.set(KEYS.checkout(record.checkoutId), JSON.stringify(record), RECORD_TTL_MS);
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

  /** Records the state change in the outbox; a final session then leaves the pending set. */
  private finish(record: CheckoutRecord, previous: CheckoutViewStatus | null): Promise<void> {
    const key = subject.checkout(record.checkoutId);
    const final = isFinalCheckoutStatus(record.status);
    return new Promise<void>((resolve) => {
      this.core.inOrder(key, async () => {
        try {
          await this.core.outbox.record(checkoutMessage(toCheckoutSnapshot(record), previous, final, this.core.ctx.now()));
          if (final) await this.core.ctx.store.removeFromSet(KEYS.pending, key);
        } finally {
          resolve();
        }
      });
    });
  }
}

/** The sessions of one order reference (`co:order:<reference>`), and the creation under way, if any. */
export interface CheckoutOrder {
  reference: string;
  /** What the first session fixed: a token for the same reference with other terms is refused. */
  terms?: { amount: number; title: string; description: string };
  /** checkoutIds, oldest first. */
  sessions: string[];
  /** Set while one request initialises a session (others wait for it). */
  creating?: { startedAt: number };
}

/** A session the customer can still pay: pending or processing, and not past its expiry. */
export function isLiveCheckout(record: CheckoutRecord, now: number): boolean {
  if (record.status === 'processing') return true;
  return record.status === 'pending' && Date.parse(record.expiresAt) > now;
}
