/**
 * A status read answers for the moment the provider looked, which may be as early as the read's start; its
 * answer can come back much later. The run, scripted on the model's world (two instances, the scripted
 * provider, a clock the test owns): a payment's request times out on its way and lands late, within the
 * bound a request can still land; a first read does not find it; a second read starts before the grace after
 * the send ends, does not find it either, and its answer is held on its way back while the request lands and
 * the clock passes the grace. Taken as the second "not found" past the grace, that answer made the try void:
 * the order was free, the customer opened the hosted checkout and paid it, and approved the prompt of the
 * request that had landed: the order was charged twice. A read proves nothing of the time after it started.
 */
import { describe, expect, it } from 'vitest';
import { customerPaysBothWays, expectChargedOnceByTheFirstTry, idle, startedWorld, stored } from './model/held-world.js';
import { LANDING_BOUND_MS } from './model/scripted-provider.js';
import { GRACE_MS, NUMBERS } from './model/world.js';

describe('a status read answered after the grace, started before it', () => {
  it('does not free the order: the request that landed meanwhile is found, and the order is charged once', async () => {
    const { w, hold, sentAt } = await startedWorld();

    w.provider.queue('payment', 'land-late');
    w.pay(0, 'O1', NUMBERS[0]);
    await idle(w);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'unknown' });

    w.clock += 2_000;
    w.reconcile(0, 'O1');
    await idle(w);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'unknown', notFound: { reads: 1 } });

    // The second read looks before the request lands, and its answer is held on the way back.
    w.clock += 3_000;
    const answer = hold('status answer on its way');
    w.reconcile(1, 'O1');
    await answer.reached;
    w.clock = sentAt + LANDING_BOUND_MS - 1_000;
    w.provider.landLate();
    expect(w.provider.payments.get('O1-1')).toMatchObject({ status: 'PENDING' });

    // Its answer comes back past the grace (no sweep on the way: the clock is set, not advanced).
    w.clock = sentAt + GRACE_MS + 5_000;
    answer.release();
    await idle(w);

    // The customer tries the hosted checkout, pays what they were sent to, and approves the prompt.
    await customerPaysBothWays(w, 0);
    await expectChargedOnceByTheFirstTry(w);
  });
});
