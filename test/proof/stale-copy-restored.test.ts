/**
 * The process that saw an order last is replaced (a rolling deploy: the new one has no copies), and later the
 * store is emptied (a flush, a failover to an empty replica). Another process holds an older copy of the
 * order, taken while its first try was pending, and puts it back. The customer's second try, made after that
 * copy, was approved meanwhile; the provider's callback found no index to name it. The copy said the
 * provider's history had been read, so nothing looked again: the completion was never reported, the order
 * looked unpaid, and the customer paid a hosted checkout too (a tester's hunt on the model's world). A copy
 * put back now has the history read again before anything new is sent or created: the checkout looks, finds
 * the completed try, adopts and reports it, and is refused.
 */
import { describe, expect, it } from 'vitest';
import { brokenRules } from './model/invariants.js';
import { idle, rounds, startedWorld, stored } from './model/held-world.js';
import { NUMBERS, type World } from './model/world.js';

/**
 * O1's second try approved after instance 0, which had sent it, was replaced and the store emptied; instance
 * 1 holds the copy taken while the first try was pending.
 */
async function staleCopyWorld(): Promise<World> {
  const { w } = await startedWorld();
  w.pay(0, 'O1', NUMBERS[0]);
  await idle(w);
  // Instance 1 reads the order once (a page's status): its copy has try 1 pending.
  w.reconcile(1, 'O1');
  await idle(w);

  // Declined; read cancelled on instance 0; the customer's second try, on instance 0.
  w.provider.answer('O1-', 'CANCELLED');
  w.callbacks(0);
  await idle(w);
  w.reconcile(0, 'O1');
  await idle(w);
  w.pay(0, 'O1', NUMBERS[0]);
  await idle(w);
  expect((await stored(w, 'O1')).tries.map((t) => `${t.reference}:${t.phase}`)).toEqual(['O1-1:cancelled', 'O1-2:pending']);

  w.restart(0);
  await idle(w);
  w.flush();
  w.provider.answer('O1-', 'COMPLETED');
  return w;
}

describe('an older copy put back after the store was emptied, the newest one gone with its process', () => {
  it('has the provider looked at again before a checkout: the later try is found and reported, charged once', async () => {
    const w = await staleCopyWorld();
    await rounds(w);

    const checkout = await w.instances[1]!.orders.checkout(w.checkoutClaims('O1')).catch((err: unknown) => err);
    await idle(w);
    expect(checkout).toMatchObject({ code: 'ORDER_IN_OTHER_PAYMENT' });
    await rounds(w);
    expect(await brokenRules(w)).toEqual([]);
    expect(w.provider.sessions.size).toBe(0);
    expect((await stored(w, 'O1')).tries.map((t) => `${t.reference}:${t.phase}`)).toEqual(['O1-1:cancelled', 'O1-2:completed']);
    expect([...w.received.keys()]).toContain('payment:O1-2:COMPLETED');
  });

  // The same, with no customer coming back: the copy's history to be read again was read by nobody, and the
  // completion never reached the merchant (found reading the fix above: "every final outcome reaches the
  // merchant at least once" held only if the customer acted).
  it('has the provider looked at by the sweeps when nobody comes back: the later try is found and reported', async () => {
    const w = await staleCopyWorld();
    await rounds(w);

    expect(w.crashes).toEqual([]);
    expect(await brokenRules(w)).toEqual([]);
    const order = await stored(w, 'O1');
    expect(order.tries.map((t) => `${t.reference}:${t.phase}`)).toEqual(['O1-1:cancelled', 'O1-2:completed']);
    expect(order.history.payments).toBe('read');
    expect([...w.received.keys()]).toContain('payment:O1-2:COMPLETED');
  });
});
