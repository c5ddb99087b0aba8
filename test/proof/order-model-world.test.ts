/**
 * The model's world (test/proof/model/world.ts): its faults do what the model checker's runs take them to do.
 */
import { describe, expect, it } from 'vitest';
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
