/**
 * The store is emptied (a Redis flushed, restarted without persistence, failed over to an empty replica) and
 * a process new to it joins (scaled out, a rolling deploy) before the processes that ran on it have looked.
 * It found no epoch, wrote a fresh one and held nothing back, so it began the order afresh without what the
 * others' copies knew: with a payment request on its way it opened a hosted checkout (its look at the
 * provider cannot see a request not landed yet), and with a customer holding a checkout URL it sent a prompt
 * (the provider lists no sessions). Paid both ways: charged twice. A process that finds no epoch while
 * others listen on the store holds new orders back for the recovery window, as the first of the others to
 * look would; they put their copies back meanwhile. The runs, scripted on the model's world (found by a
 * tester's hunt on it).
 */
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/proxy/errors.js';
import { brokenRules } from './model/invariants.js';
import { idle, rounds, startedWorld, stored } from './model/held-world.js';
import { NUMBERS, type World } from './model/world.js';

/** What the third process answered a customer, the hold's refusal included. */
async function onTheThird<T>(w: World, ask: (orders: World['instances'][number]['orders']) => Promise<T>): Promise<T | ProxyError> {
  const answer = await ask(w.instances[2]!.orders).catch((err: unknown) => err);
  await idle(w);
  return answer as T | ProxyError;
}

/** Approvals, callbacks and time, until every read and notification is done. */
async function quiesce(w: World): Promise<void> {
  w.provider.answer('O1-', 'COMPLETED');
  await rounds(w, 8);
}

describe('a process new to an emptied store, before the others looked', () => {
  it('opens no hosted checkout while a payment request is on its way: charged once, by that payment', async () => {
    const { w, hold } = await startedWorld();
    const request = hold('payment request on its way');
    w.pay(0, 'O1', NUMBERS[0]);
    await request.reached;

    w.flush();
    w.join();
    await idle(w);
    const checkout = await onTheThird(w, (orders) => orders.checkout(w.checkoutClaims('O1')));
    expect(checkout).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', details: { retryable: true } });
    w.provider.paySession('O1');

    request.release();
    await idle(w);
    await quiesce(w);
    expect(await brokenRules(w)).toEqual([]);
    expect(w.provider.sessions.size).toBe(0);
    expect([...w.received.keys()]).toContain('payment:O1-1:COMPLETED');
  });

  it('sends no prompt while a customer holds a checkout URL: charged once, by the checkout', async () => {
    const { w } = await startedWorld();
    w.checkout(0, 'O1');
    await idle(w);
    expect((await stored(w, 'O1')).sessions[0]).toMatchObject({ phase: 'open' });

    w.flush();
    w.join();
    await idle(w);
    const pay = await onTheThird(w, (orders) => orders.pay(w.paymentClaims('O1', 3), NUMBERS[0]));
    expect(pay).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', details: { retryable: true } });
    w.provider.paySession('O1');

    await quiesce(w);
    expect(await brokenRules(w)).toEqual([]);
    expect(w.provider.payments.size).toBe(0);
    expect([...w.received.values()].some((m) => m.kind === 'checkout' && (m.payload as { snapshot: { status: string } }).snapshot.status === 'completed')).toBe(true);
  });
});
