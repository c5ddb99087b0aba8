/**
 * The model's world (test/proof/model/world.ts): its faults do what the model checker's runs take them to do.
 */
import { describe, expect, it } from 'vitest';
import { ORDER_KEYS } from '../../src/proxy/order/keys.js';
import { HISTORY_INTERVAL_MS } from '../../src/proxy/store/store-history.js';
import { brokenRules } from './model/invariants.js';
import { idle, rounds, startedWorld, stored } from './model/held-world.js';

describe("the model's lagging replica", () => {
  it("answers an instance's reads with the older record until it caught up, and its writes go to the master", async () => {
    const { w } = await startedWorld();
    w.pay(0, 'O1', '233240000001');
    await idle(w);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'pending' });
    // The second instance's replica stops here; the customer approves and the first instance reads it.
    w.lag(1, 2);
    w.provider.answer('O1-', 'COMPLETED');
    w.reconcile(0, 'O1');
    await idle(w);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'completed' });
    // The second instance reads the order: its first reads are the replica's, the try pending; it reads the
    // provider, and its commit of the completion, expecting the pending record, is refused by the master.
    // Its next read, the replica caught up, is the master's.
    const refused = w.refusedCommits;
    w.reconcile(1, 'O1');
    await idle(w);
    expect(w.instances[1]!.lagging).toBeUndefined();
    expect(w.refusedCommits).toBe(refused + 1);
    // The customer returns through the second instance: no second charge.
    w.pay(1, 'O1', '233240000001');
    await idle(w);
    await rounds(w);
    expect(w.crashes).toEqual([]);
    expect(await brokenRules(w)).toEqual([]);
    expect(w.provider.initiations).toBe(1);
    expect([...w.received.keys()]).toContain('payment:O1-1:COMPLETED');
  });

  it('gives a lagging instance the store as it was', async () => {
    const { w } = await startedWorld();
    w.lag(1, 2);
    w.pay(0, 'O1', '233240000001');
    await idle(w);
    const replica = w.instances[1]!.lagging!.replica;
    expect(await replica.get('ord:O1')).toBeNull();
    expect(await w.memory.get('ord:O1')).not.toBeNull();
  });
});

describe("the model's store going back in time", () => {
  it('goes unnoticed until the next look of each running process, which then holds new orders and puts its copies back', async () => {
    const { w } = await startedWorld({ losses: 'rollback', statusReference: 'either', lists: true });
    w.snapshot();
    w.pay(0, 'O1', '233240000001');
    await idle(w);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'pending' });
    // Redis restarts from the snapshot taken before the payment: the record is gone, and nothing says so yet.
    w.rollback();
    expect(await w.memory.get(ORDER_KEYS.order('O1'))).toBeNull();
    w.advance(10);
    await idle(w);
    expect(await w.memory.get(ORDER_KEYS.recovering)).toBeNull();
    // A look later: the hold is on, and the process that made the payment put its record back unasked.
    w.advance(HISTORY_INTERVAL_MS);
    await idle(w);
    expect(await w.memory.get(ORDER_KEYS.recovering)).not.toBeNull();
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'pending', reference: 'O1-1' });
    expect(w.crashes).toEqual([]);
  });
});
