/**
 * The operator's "absent" is the operator's reading of the provider's records, and a reading can be wrong (the
 * wrong account's dashboard, the wrong day). Taken on the word alone: a session whose URL the customer held
 * was void and its order free, and a try whose request had landed was void; the customer paid the other way
 * as well, and the order was charged twice (the session's completion never reported). The proxy now reads
 * what it can before taking the word: what a read finds is not absent (400 INVALID_INPUT, nothing changed,
 * the order read soon). The runs, scripted on the model's world.
 */
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/proxy/errors.js';
import { brokenRules } from './model/invariants.js';
import { customerPaysBothWays, expectChargedOnceByTheFirstTry, idle, rounds, startedWorld, stored } from './model/held-world.js';
import { GRACE_MS, NUMBERS } from './model/world.js';

describe('the operator resolving absent what the provider has', () => {
  it('is refused for a session whose URL the customer holds: paid once, and reported', async () => {
    const { w } = await startedWorld();
    w.checkout(0, 'O1');
    await idle(w);
    expect((await stored(w, 'O1')).sessions[0]).toMatchObject({ phase: 'open' });

    w.clock += GRACE_MS + 1_000;
    const word = await w.instances[0]!.orders.resolve('O1', { session: 1, absent: true }).catch((err: unknown) => err);
    expect(word).toBeInstanceOf(ProxyError);
    expect(word).toMatchObject({ code: 'INVALID_INPUT', details: { fields: [{ path: 'session', message: expect.stringMatching(/not absent/) }] } });
    expect((await stored(w, 'O1')).sessions[0]).toMatchObject({ phase: 'open' });

    // The customer pays the session they were sent to, and asks for a prompt too: the order is held.
    w.provider.paySession('O1');
    w.pay(1, 'O1', NUMBERS[0]);
    await idle(w);
    w.provider.answer('O1-', 'COMPLETED');
    await rounds(w);
    expect(await brokenRules(w)).toEqual([]);
    expect(w.provider.payments.size).toBe(0);
    expect([...w.received.values()].some((m) => m.kind === 'checkout' && (m.payload as { snapshot: { status: string } }).snapshot.status === 'completed')).toBe(true);
  });

  it('is refused for a try whose request landed (its answer lost): paid once, by that try', async () => {
    const { w, sentAt } = await startedWorld();
    w.provider.queue('payment', 'lose-answer');
    w.pay(0, 'O1', NUMBERS[0]);
    await idle(w);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'unknown' });
    expect(w.provider.payments.get('O1-1')).toMatchObject({ status: 'PENDING' });

    w.clock = sentAt + GRACE_MS + 1_000;
    const word = await w.instances[1]!.orders.resolve('O1', { reference: 'O1-1', absent: true }).catch((err: unknown) => err);
    expect(word).toMatchObject({ code: 'INVALID_INPUT', details: { fields: [{ path: 'reference', message: expect.stringMatching(/PENDING/) }] } });
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'unknown' });

    await customerPaysBothWays(w, 0);
    await expectChargedOnceByTheFirstTry(w);
  });
});
