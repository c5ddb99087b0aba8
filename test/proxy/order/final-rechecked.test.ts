/**
 * A try read FAILED or CANCELLED, or a session read failed, cancelled or expired, is read again within the
 * reconcile window, on a schedule that spaces out with its age (DESIGN: the reconciler). Pure, so tested on
 * records; the whole path on the model's world: test/proof/failed-then-completed.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { cadence, isUnsettled, readsDue, recheckDelay } from '../../../src/proxy/reconcile/reconcile-plan.js';
import { NOW, order, paymentTry, session } from './fixtures.js';

const PLAN = { now: NOW, listsSessions: false, reconcileWindowMs: 86_400_000, readsByReferenceNo: true, lateIntervalMs: 60_000 };
const MINUTE = 60_000;

describe('a try or session read final and unpaid', () => {
  it('is read again, blocks nothing, and is read less often as it ages', () => {
    const failed = order({ tries: [paymentTry({ phase: 'failed', updatedAt: NOW - 30_000 })] });
    // With it, what the provider has beyond the record: the next number (a record rolled back to before a later
    // try knew nothing of it).
    expect(readsDue(failed, PLAN)).toEqual([{ kind: 'payment', reference: 'O-1', referenceId: 'R1' }, { kind: 'probe-payment', n: 2 }]);
    expect(isUnsettled(failed, PLAN)).toBe(true);
    expect(cadence(failed, PLAN)).toBe('recheck');
    expect(recheckDelay(failed, PLAN)).toBe(MINUTE);
    const aged = (ms: number) => recheckDelay(order({ tries: [paymentTry({ phase: 'cancelled', updatedAt: NOW - ms })] }), PLAN);
    expect(aged(10 * MINUTE)).toBe(5 * MINUTE);
    expect(aged(20 * 60 * MINUTE)).toBe(120 * MINUTE);
    // Beside a live try the customer waits on (their retry, before its deadline) it waits: read at the live
    // try's fast cadence, it would double the reads of every retried payment. Once the live one ends, it is
    // read again.
    const beside = order({ tries: [paymentTry({ phase: 'failed', updatedAt: NOW - 30_000 }), paymentTry({ ordinal: 2, n: 2, reference: 'O-2', phase: 'pending', deadlineAt: NOW + MINUTE })] });
    expect(readsDue(beside, PLAN)).toEqual([{ kind: 'payment', reference: 'O-2', referenceId: 'R1' }]);
    expect(cadence(beside, PLAN)).toBe('fast');
    const ended = { ...beside, tries: [beside.tries[0]!, { ...beside.tries[1]!, phase: 'cancelled' as const, updatedAt: NOW }] };
    expect(readsDue(ended, PLAN).map((r) => (r.kind === 'payment' ? r.reference : r.kind === 'probe-payment' ? r.n : r.kind))).toEqual(['O-1', 'O-2', 3]);
    expect(cadence(ended, PLAN)).toBe('recheck');
    expect(recheckDelay(ended, PLAN)).toBe(MINUTE);
  });

  it('is read beside a live try past its deadline, at the slow cadence: it does not wait for it to end', () => {
    // The provider may leave a try pending past the window: a late completion waiting behind it was never
    // reported (test/proof/failed-then-completed.test.ts, the model checker's `late` era).
    const stuck = order({ tries: [paymentTry({ phase: 'cancelled', updatedAt: NOW - 2 * MINUTE }), paymentTry({ ordinal: 2, n: 2, reference: 'O-2', phase: 'pending', deadlineAt: NOW - 1 })] });
    expect(readsDue(stuck, PLAN).map((r) => (r.kind === 'payment' ? r.reference : r.kind === 'probe-payment' ? r.n : r.kind))).toEqual(['O-1', 'O-2', 3]);
    expect(cadence(stuck, PLAN)).toBe('slow');
    // So is a session read expired beside an unknown try past its deadline.
    const unknown = order({ tries: [paymentTry({ phase: 'unknown', deadlineAt: NOW - 1 })], sessions: [session({ checkoutId: 'CO1', phase: 'expired', updatedAt: NOW - MINUTE })] });
    expect(readsDue(unknown, PLAN).filter((r) => r.kind === 'session')).toEqual([{ kind: 'session', checkoutId: 'CO1' }]);
  });

  it('is read again within the reconcile window of that reading only, and only while it holds its number', () => {
    const old = order({ tries: [paymentTry({ phase: 'failed', updatedAt: NOW - 86_400_000 })] });
    expect(readsDue(old, PLAN)).toEqual([]);
    expect(cadence(old, PLAN)).toBe('done');
    expect(recheckDelay(old, PLAN)).toBeNull();
    // A refused try is no payment at the provider: nothing to read.
    expect(readsDue(order({ tries: [paymentTry({ phase: 'refused', failureCode: 'INSUFFICIENT_FUNDS', updatedAt: NOW })] }), PLAN)).toEqual([]);
  });

  it('reads a session read failed, cancelled or expired again; one never created is not', () => {
    for (const phase of ['failed', 'cancelled', 'expired'] as const) {
      const s = order({ sessions: [session({ checkoutId: 'CO1', phase, updatedAt: NOW - MINUTE })] });
      expect(readsDue(s, PLAN)).toEqual([{ kind: 'session', checkoutId: 'CO1' }, { kind: 'probe-payment', n: 1 }]);
      expect(readsDue(s, { ...PLAN, listsSessions: true })).toEqual([{ kind: 'session', checkoutId: 'CO1' }, { kind: 'list-sessions' }, { kind: 'probe-payment', n: 1 }]);
      expect(cadence(s, PLAN)).toBe('recheck');
    }
    expect(readsDue(order({ sessions: [session({ checkoutId: null, phase: 'void', updatedAt: NOW })] }), PLAN)).toEqual([]);
  });

  it('is read 23 times over a day with the defaults (a minute, two hours, a day), not 1,440', () => {
    // Read final at age 0; each pass then waits its delay, and reads when the try is still due then.
    const at = (age: number) => order({ tries: [paymentTry({ phase: 'failed', updatedAt: NOW - age })] });
    let reads = 0;
    for (let age = recheckDelay(at(0), PLAN)!; readsDue(at(age), PLAN).length > 0; age += recheckDelay(at(age), PLAN)!) reads++;
    expect(reads).toBe(23);
  });
});
