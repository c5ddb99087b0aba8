/**
 * A store command can run and lose its answer: Redis past the client's command timeout under load, or a
 * connection dropped between the write and its reply. A customer's payment request whose commit ran so was
 * answered 503 and never sent, while the record held its claim: the order waited for the claim's lease and
 * the grace (where no read can see a payment, for the operator) before anyone could pay. The record read back
 * holding exactly what was written says the commit ran. The runs, scripted on the model's world, lose the
 * answer of each of the commits of one payment request in turn.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { heldWorld, idle, stored } from './model/held-world.js';
import { NUMBERS } from './model/world.js';

describe("a payment request one of whose commits ran and lost its answer", () => {
  it.each([0, 1, 2])('sends the payment once and answers it (the answer of commit %i lost)', async (lost) => {
    const { w } = heldWorld();
    onTestFinished(() => w.close());
    w.ready();
    await idle(w);

    w.storeFaults.push(...Array<null>(lost).fill(null), 'applied');
    const answer = await w.instances[0]!.orders.pay(w.paymentClaims('O1', 3), NUMBERS[0]);
    expect(w.storeFaults).toEqual([]);
    expect(answer).toMatchObject({ reference: 'O1-1', status: 'PENDING' });
    expect([...w.provider.payments.keys()]).toEqual(['O1-1']);
    expect((await stored(w, 'O1')).tries).toMatchObject([{ reference: 'O1-1', phase: 'pending' }]);
  });
});
