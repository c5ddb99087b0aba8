/**
 * A store command can fail to answer for what it did: Redis past the client's command timeout under load, a
 * connection dropped between the write and its reply, and ioredis then sending the command again after the
 * reconnect (its second run refused: the record is no longer what it expected). A customer's payment
 * request whose commit ran so was answered 503 (or waited on its own claim as on another's) and never sent,
 * while the record held its claim: the order waited for the claim's lease and the grace (where no read can
 * see a payment, for the operator) before anyone could pay. A request now looks again: the record holding
 * exactly what it wrote says the commit ran; otherwise it tries again, as after any refused commit. The runs,
 * scripted on the model's world, make each of the commits of one payment request fail each way in turn.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { heldWorld, idle, stored } from './model/held-world.js';
import { NUMBERS, type StoreFault } from './model/world.js';

const cases = (['applied', 'resent', 'lost'] as const).flatMap((how) => [0, 1, 2].map((commit) => ({ how, commit })));

describe('a payment request one of whose commits did not answer for what it did', () => {
  it.each(cases)('sends the payment once and answers it (commit $commit: $how)', async ({ how, commit }) => {
    const { w } = heldWorld();
    onTestFinished(() => w.close());
    w.ready();
    await idle(w);

    w.storeFaults.push(...Array<StoreFault>(commit).fill(null), how);
    const answer = await w.instances[0]!.orders.pay(w.paymentClaims('O1', 3), NUMBERS[0]);
    expect(w.storeFaults).toEqual([]);
    expect(answer).toMatchObject({ reference: 'O1-1', status: 'PENDING' });
    expect([...w.provider.payments.keys()]).toEqual(['O1-1']);
    expect((await stored(w, 'O1')).tries).toMatchObject([{ reference: 'O1-1', phase: 'pending' }]);
  });
});
