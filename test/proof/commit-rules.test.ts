/**
 * The rules the model checker checks at every commit of an order record (test/proof/model/commit-rules.ts):
 * each fails on a sequence of records that breaks it, and the model's world checks every commit its
 * instances make, naming the command under way.
 */
import { describe, expect, it } from 'vitest';
import { LIVE_TRY_PHASES, type CheckoutTry, type Order, type PaymentTry } from '../../src/proxy/order/order-record.js';
import { CommitRules, type Truth } from './model/commit-rules.js';
import { idle, startedWorld } from './model/held-world.js';

/** A try as the store keeps it: its number masked once it is final. */
const payment = (reference: string, phase: PaymentTry['phase'], callbackId = `cb-${reference}`, msisdn = LIVE_TRY_PHASES.includes(phase) ? '233240000001' : '+233 24 *** **01'): PaymentTry =>
  ({ ordinal: 1, n: 1, reference, jti: 'j', maxAttempts: 3, msisdn, phase, sendId: 's', sentAt: 0, referenceId: 'r', callbackId, amount: 1, charge: 0, totalAmount: 1, completedAt: null, deadlineAt: 0, promptExpiresAt: null, seq: 1, updatedAt: 0 }) as PaymentTry;
const session = (createId: string, phase: CheckoutTry['phase'], checkoutId: string | null = `co-${createId}`, adopted = false): CheckoutTry =>
  ({ ordinal: 1, jti: 'j', phase, createId, startedAt: 0, checkoutId, checkoutUrl: null, status: 'pending', amount: 1, currency: 'GHS', expiresAt: null, completedAt: null, seq: 1, updatedAt: 0, ...(adopted ? { adopted } : {}) }) as CheckoutTry;
const record = (v: number, tries: PaymentTry[] = [], sessions: CheckoutTry[] = [], id = 'rec', ref = 'O1'): string =>
  JSON.stringify({ id, v, ref, tries, sessions, history: { payments: 'read', sessions: 'read' }, createdAt: 0, updatedAt: 0 } satisfies Order);

/** A provider that has every payment and session the records name, completed, and told the merchant nothing. */
function truth(over: Partial<Truth> = {}): Truth {
  return { payment: () => ({ status: 'COMPLETED', msisdn: '233240000001' }), session: () => ({ status: 'completed' }), told: () => [], ...over };
}

/** Feeds the records in order, each over the one before (the first over nothing); every rule broken. */
function feed(records: string[], t: Truth = truth(), rules = new CommitRules()): string[] {
  return records.flatMap((value, i) => rules.check(i === 0 ? null : records[i - 1]!, value, t));
}

describe('the rules checked at every commit', () => {
  it('keeps quiet on a record that moves on by the rules', () => {
    const t = truth({ payment: (ref) => ({ status: ref === 'O1-1' ? 'CANCELLED' : 'COMPLETED', msisdn: '233240000001' }) });
    expect(feed([record(1, [payment('O1-1', 'sending')]), record(2, [payment('O1-1', 'cancelled')]), record(3, [payment('O1-1', 'cancelled'), payment('O1-2', 'pending')])], t)).toEqual([]);
    // A session whose creation is answering and the same session found by a listing meanwhile count once.
    expect(feed([record(1, [], [session('a', 'creating', null)]), record(2, [], [session('a', 'creating', null), session('b', 'open', 'X', true)])])).toEqual([]);
    // A commit that changes nothing (taking the order out of the reconciler's set) is no new version.
    expect(new CommitRules().check(record(4), record(4), truth())).toEqual([]);
  });

  it('finds a try or a session started while another is live', () => {
    expect(feed([record(1, [payment('O1-1', 'unknown')]), record(2, [payment('O1-1', 'unknown'), payment('O1-2', 'sending', 'cb2')])])).toEqual([
      'O1 (record rec v2) started try O1-2 with 2 live at once: try O1-1 unknown, try O1-2 sending',
    ]);
    expect(feed([record(1, [payment('O1-1', 'pending')], [session('a', 'creating', null)])])).toHaveLength(1);
    // The provider's doing, read: a try judged void whose request landed after all, pending beside the session
    // begun meanwhile. Nothing was started beside something live.
    expect(feed([record(1, [payment('O1-1', 'void')], [session('a', 'creating', null)]), record(2, [payment('O1-1', 'pending')], [session('a', 'creating', null)])])).toEqual([]);
  });

  it("takes a copy's claim merged back after the store went back for no new start, whatever its time", () => {
    const rules = new CommitRules();
    rules.check(null, record(1), truth());
    const saved = rules.save();
    rules.check(record(1), record(2, [payment('O1-1', 'sending')]), truth());
    // The store goes back to v1; a session is begun there, and the copy's try (still on its way) merged in.
    rules.restore(saved);
    expect(rules.check(record(1), record(2, [], [session('a', 'creating', null)]), truth())).toEqual([]);
    expect(rules.check(record(2, [], [session('a', 'creating', null)]), record(3, [payment('O1-1', 'sending')], [session('a', 'creating', null)]), truth())).toEqual([]);
    // A claim never committed before, beside the live session, is a start.
    expect(rules.check(record(3, [], [session('a', 'creating', null)]), record(4, [payment('O1-2', 'sending', 'cb2')], [session('a', 'creating', null)]), truth())).toHaveLength(1);
  });

  it('finds a version that does not rise', () => {
    expect(feed([record(3), record(3, [payment('O1-1', 'sending')])])).toEqual(['O1 (record rec v3) was written over v3 of the same record without a higher version']);
    // Over nothing (the record expired, or was deleted) at a version the store's history already had.
    const rules = new CommitRules();
    rules.check(null, record(5), truth());
    expect(rules.check(null, record(4, [payment('O1-1', 'sending')]), truth())).toEqual(["O1 (record rec v4) was written at a version the store's history already had (v5)"]);
  });

  it('forgets the versions of an emptied store, and goes back with one restored from its snapshot', () => {
    const rules = new CommitRules();
    rules.check(null, record(2), truth());
    const saved = rules.save();
    rules.check(record(2), record(7), truth());
    rules.restore(saved);
    expect(rules.check(record(2), record(3, [payment('O1-1', 'sending')]), truth())).toEqual([]);
    rules.restore(null);
    expect(rules.check(null, record(1), truth())).toEqual([]);
  });

  it("takes back only the lost shard's orders' versions, the other shard's history kept", () => {
    const rules = new CommitRules();
    const o2 = (v: number) => record(v, [], [], 'rec2', 'O2');
    rules.check(null, record(2), truth());
    rules.check(null, o2(2), truth());
    const saved = rules.save();
    rules.check(record(2), record(7), truth());
    rules.check(o2(2), o2(7), truth());
    // O1's shard goes back to the snapshot: O1 may be written on from v2 again; O2's shard did not go back.
    rules.restore(saved, new Set(['O1']));
    expect(rules.check(record(2), record(3), truth())).toEqual([]);
    expect(rules.check(null, o2(4), truth())).toEqual(["O2 (record rec2 v4) was written at a version the store's history already had (v7)"]);
    // O2's shard is emptied: its versions are forgotten, O1's (v3 now) kept.
    rules.restore(null, new Set(['O2']));
    expect(rules.check(null, o2(1), truth())).toEqual([]);
    expect(rules.check(null, record(3, [payment('O1-1', 'sending')]), truth())).toEqual(["O1 (record rec v3) was written at a version the store's history already had (v3)"]);
  });

  it('with acrossLosses, finds a second record under an id and version the run already had', () => {
    const rules = new CommitRules({ acrossLosses: true });
    rules.check(null, record(1, [payment('O1-1', 'sending')]), truth());
    rules.restore(null);
    expect(rules.check(null, record(1), truth())).toEqual(['O1 (record rec v1) is a second, different record under the same id and version']);
  });

  it('finds a final phase becoming anything but completed, a completion undone, a try or session lost', () => {
    const declined = (status: string) => truth({ payment: () => ({ status, msisdn: '233240000001' }) });
    expect(feed([record(1, [payment('O1-1', 'cancelled')]), record(2, [payment('O1-1', 'completed')])])).toEqual([]);
    expect(feed([record(1, [payment('O1-1', 'cancelled')]), record(2, [payment('O1-1', 'pending')])], declined('CANCELLED'))).toEqual(["O1 (record rec v2)'s try O1-1 went from cancelled to pending"]);
    expect(feed([record(1, [payment('O1-1', 'completed')]), record(2, [payment('O1-1', 'failed')])], declined('COMPLETED'))).toEqual(["O1 (record rec v2)'s try O1-1 went from completed to failed"]);
    expect(feed([record(1, [], [session('a', 'expired')]), record(2, [], [session('a', 'open')])])).toEqual(["O1 (record rec v2)'s session co-a went from expired to open"]);
    expect(feed([record(1, [payment('O1-1', 'completed')]), record(2)])).toEqual(['O1 (record rec v2) lost its try O1-1 (completed)']);
    // Void and refused are the proxy's own word, not the provider's: a payment found after all revives them.
    expect(feed([record(1, [payment('O1-1', 'void')]), record(2, [payment('O1-1', 'pending')])])).toEqual([]);
  });

  it('finds a record or a notification that disagrees with the provider', () => {
    const none = truth({ payment: () => undefined, session: () => undefined });
    expect(feed([record(1, [payment('O1-1', 'pending')])], none)).toEqual(["O1 (record rec v1)'s try O1-1 is pending but the provider has no payment of ours under it"]);
    expect(feed([record(1, [payment('O1-1', 'completed')])], truth({ payment: () => ({ status: 'PENDING', msisdn: '233240000001' }) }))).toEqual([
      "O1 (record rec v1)'s try O1-1 is completed, the provider says PENDING",
    ]);
    expect(feed([record(1, [payment('O1-1', 'pending')])], truth({ payment: () => ({ status: 'PENDING', msisdn: '233240000009', foreign: true }) }))).toHaveLength(1);
    // A final try says the provider's number masked, and keeps no more of it.
    expect(feed([record(1, [payment('O1-1', 'completed', 'cb', '+233 24 *** **09')])])).toEqual(["O1 (record rec v1)'s try O1-1 says number +233 24 *** **09, the provider 233240000001"]);
    expect(feed([record(1, [payment('O1-1', 'completed', 'cb', '233240000001')])])).toEqual(["O1 (record rec v1)'s try O1-1 is completed and its record keeps the full number"]);
    expect(feed([record(1, [payment('O1-1', 'pending', 'cb', '233240000009')])], truth({ payment: () => ({ status: 'PENDING', msisdn: '233240000001' }) }))).toHaveLength(1);
    expect(feed([record(1, [], [session('a', 'completed')])], truth({ session: () => ({ status: 'pending' }) }))).toEqual(["O1 (record rec v1)'s session co-a is completed, the provider says pending"]);
    const told = truth({ payment: () => ({ status: 'CANCELLED', msisdn: '233240000001' }), told: () => [{ kind: 'payment', subject: 'O1-1', status: 'COMPLETED' }] });
    expect(feed([record(1)], told)).toEqual(['the merchant was told O1-1 COMPLETED, the provider says CANCELLED']);
  });
});

describe("the model's world", () => {
  it('checks every commit of its instances and names the command under way', async () => {
    const { w } = await startedWorld();
    w.command = 0;
    w.pay(0, 'O1', '233240000001');
    await idle(w);
    expect(w.brokenAtCommit).toEqual([]);
    // The provider loses its record of the payment (no provider does: this is to see the world check), and
    // the try's deadline passes: the commit that marks it timed out says pending of a payment that is not there.
    w.provider.payments.delete('O1-1');
    w.command = 1;
    w.advance(61_000);
    await idle(w);
    expect(w.brokenAtCommit[0]).toMatch(/^at command 1: O1 \(record \w+ v\d+\)'s try O1-1 is pending but the provider has no payment of ours under it$/);
  });
});
