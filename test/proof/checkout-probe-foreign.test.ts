/**
 * Two shops on one provider account without a reference prefix: the other shop's order "O1" was paid by
 * mobile money at the same price, to its own payee. Our customer opens the hosted checkout for our order "O1",
 * new to the store, so the checkout first reads what the provider has under O1-1. It compared the amount only
 * (it took the payee and narration to compare from the payment it found): the other shop's payment was adopted
 * as our completed try, our merchant was told O1 was paid, and our customer was refused the checkout. The
 * payment found must be to this shop's payee.
 * The run, scripted on the model's world (found by a tester's hunt on it).
 */
import { describe, expect, it } from 'vitest';
import { brokenRules } from './model/invariants.js';
import { idle, startedWorld, stored } from './model/held-world.js';
import { AMOUNT } from './model/world.js';

describe("a new order's hosted checkout, another shop's payment under its first reference", () => {
  it('adopts nothing: the checkout opens for our order, the customer pays it, and that is what is reported', async () => {
    const { w } = await startedWorld();
    w.provider.payments.set('O1-1', { referenceNo: 'O1-1', referenceId: 'theirs1', status: 'COMPLETED', amount: AMOUNT, payee: 'Other Shop', narration: 'Their order O1', msisdn: '233240000009', callbackId: 'x', foreign: true });

    const answer = await w.instances[0]!.orders.checkout(w.checkoutClaims('O1')).catch((err: unknown) => err);
    expect(answer).toMatchObject({ checkoutUrl: expect.any(String) });
    w.provider.sessions.get((answer as { checkoutId: string }).checkoutId)!.reachable = true;
    w.provider.paySession('O1');
    for (let round = 0; round < 4; round++) {
      w.advance(30_000);
      await idle(w);
    }
    expect(await brokenRules(w)).toEqual([]);
    expect((await stored(w, 'O1')).tries.filter((t) => t.phase === 'completed')).toEqual([]);
    expect([...w.received.keys()].filter((k) => k.startsWith('payment:'))).toEqual([]);
    expect([...w.received.values()].some((m) => m.kind === 'checkout' && (m.payload as { snapshot: { status: string } }).snapshot.status === 'completed')).toBe(true);
  });
});
