/**
 * A send's request held on its way past its lease and the grace (a request can, beyond any bound the proxy
 * can enforce: DESIGN, "unknown blocks everything"): reads started past the grace do not find it, and the try
 * is void, the order free. Then the request lands and its answer comes back: accepted, the prompt waiting on
 * the customer's phone. That answer is the provider's word that the payment exists, as a read finding it
 * would be: the try is pending again and holds the order, so a hosted checkout asked for from then on is
 * refused, and the one payment is reported when the customer approves it. Before, the answer was ignored
 * (a void try learned nothing from a send's answer): the checkout opened and was paid, the prompt approved,
 * and the order was charged twice.
 */
import { describe, expect, it } from 'vitest';
import { customerPaysBothWays, expectChargedOnceByTheFirstTry, idle, startedWorld, stored } from './model/held-world.js';
import { GRACE_MS, NUMBERS } from './model/world.js';

describe('a send accepted after its try was found void', () => {
  it('makes the try pending again: the order is held, and charged once', async () => {
    const { w, hold, sentAt } = await startedWorld();

    const request = hold('payment request on its way');
    w.pay(0, 'O1', NUMBERS[0]);
    await request.reached;

    // Past the lease and the grace, two reads that can see it do not find it: void, the order free.
    for (const after of [GRACE_MS + 1_000, GRACE_MS + 3_000]) {
      w.clock = sentAt + after;
      w.reconcile(1, 'O1');
      await idle(w);
    }
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'void', voidReason: 'not-found' });

    // The request lands; its answer, accepted, comes back.
    request.release();
    await idle(w);
    expect(w.provider.payments.get('O1-1')).toMatchObject({ status: 'PENDING' });
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'pending' });

    await customerPaysBothWays(w, 1);
    await expectChargedOnceByTheFirstTry(w);
  });
});
