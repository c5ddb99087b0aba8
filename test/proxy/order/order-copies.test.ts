/**
 * The copies a process keeps of its orders: what a write leaves in them. A copy keeps what the process knew
 * even when one of its writes went through on an older record (a store that went back in time).
 */
import { describe, expect, it } from 'vitest';
import { OrderCopies } from '../../../src/proxy/order/order-copies.js';
import { recordValue, type Order } from '../../../src/proxy/order/order-record.js';
import { ENV, order, paymentTry, session } from './fixtures.js';

const env = { ...ENV, reconcileWindowMs: 86_400_000 };
const kept = (o: Order) => [o, recordValue(o, ENV)] as const;

describe('the copies of orders', () => {
  const base = order({ v: 1 });
  const withTry = order({ v: 2, tries: [paymentTry({ phase: 'sending', referenceId: null, sentAt: null })] });
  const withSession = order({ v: 2, sessions: [session({ phase: 'creating', checkoutId: null, checkoutUrl: null })] });

  it('keeps the record a write made when the copy is the one the write read', () => {
    const copies = new OrderCopies(10);
    copies.set('O', ...kept(base), env);
    copies.keep('O', recordValue(base, ENV), ...kept(withTry), env);
    expect(copies.head('O')?.raw).toBe(recordValue(withTry, ENV));
    expect(copies.unsettled(env)).toEqual(['O']);
  });

  it('keeps, merged, a try the copy holds and a write on an older record did not (the store went back between its read and its write)', () => {
    const copies = new OrderCopies(10);
    copies.set('O', ...kept(withTry), env);
    copies.keep('O', recordValue(base, ENV), ...kept(withSession), env);
    const copy = copies.get('O')!;
    expect(copy.sessions.map((x) => x.phase)).toEqual(['creating']);
    expect(copy.tries.map((t) => [t.reference, t.phase])).toEqual([['O-1', 'sending']]);
    // Not the record as stored: the order's next read here merges the copy into it.
    expect(copies.head('O')?.raw).not.toBe(recordValue(withSession, ENV));
  });

  it('keeps the write as made when the copy that moved on knew nothing more', () => {
    const copies = new OrderCopies(10);
    const both = order({ v: 3, tries: withTry.tries, sessions: withSession.sessions });
    copies.set('O', ...kept(withTry), env);
    copies.keep('O', recordValue(base, ENV), ...kept(both), env);
    expect(copies.head('O')?.raw).toBe(recordValue(both, ENV));
  });
});
