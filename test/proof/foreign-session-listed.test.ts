/**
 * One provider account, two shops, no reference prefix; the provider lists sessions by reference (the
 * sandbox does). Another shop's session under reference O1, at its price, is completed. Our customer's first
 * look at our order O1 (a checkout, or a mobile-money try) lists the order's sessions before anything is sent:
 * a new order has no terms, and the listing's price was compared with none. The other shop's session was
 * adopted as ours, completed: the checkout was answered with it, the payment refused as "paid by checkout",
 * and our merchant told O1 was paid. Only a session at the asking token's price is taken now (a tester's hunt
 * on the model's world). At our own price a listing cannot tell shops apart: that is what a prefix is for.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { idle, stored } from './model/held-world.js';
import { NUMBERS, World } from './model/world.js';

async function world(): Promise<World> {
  const w = new World({ statusReference: 'either', lists: true, prefix: '', losses: 'flush', readsInFlight: true, skewMs: 0, presence: true }, 1, async () => undefined);
  onTestFinished(() => w.close());
  w.ready();
  await idle(w);
  w.provider.sessions.set('theirs', { checkoutId: 'theirs', reference: 'O1', amount: 99, status: 'completed', expiresAt: w.clock + 30_000, reachable: true });
  return w;
}

async function quiesce(w: World): Promise<void> {
  for (let round = 0; round < 3; round++) {
    w.advance(30_000);
    await idle(w);
  }
}

const toMerchant = (w: World) => [...w.received.keys()];

describe("another shop's completed session under our order's reference, at another price", () => {
  it('is not what a checkout of our order is answered with, nor reported', async () => {
    const w = await world();
    const answer = await w.instances[0]!.orders.checkout(w.checkoutClaims('O1'));
    await quiesce(w);
    expect(answer).toMatchObject({ status: 'pending', checkoutUrl: expect.any(String) });
    expect(answer.checkoutId).not.toBe('theirs');
    expect((await stored(w, 'O1')).sessions.map((s) => s.checkoutId)).toEqual([answer.checkoutId]);
    expect(toMerchant(w).filter((k) => k.includes('theirs'))).toEqual([]);
  });

  it('does not keep our customer from paying by mobile money, nor is reported', async () => {
    const w = await world();
    const answer = await w.instances[0]!.orders.pay(w.paymentClaims('O1', 3), NUMBERS[0]);
    await quiesce(w);
    expect(answer).toMatchObject({ reference: 'O1-1', status: 'PENDING' });
    expect((await stored(w, 'O1')).sessions).toEqual([]);
    expect(toMerchant(w).filter((k) => k.includes('theirs'))).toEqual([]);
  });
});
