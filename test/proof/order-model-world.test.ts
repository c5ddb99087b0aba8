/**
 * The model's world (test/proof/model/world.ts): its faults do what the model checker's runs take them to do.
 */
import { describe, expect, it } from 'vitest';
import { ORDER_KEYS } from '../../src/proxy/order/keys.js';
import { HISTORY_INTERVAL_MS } from '../../src/proxy/store/store-history.js';
import type { MemoryStore } from '../../src/proxy/store/memory.js';
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

describe("the model's shards", () => {
  it('keeps each order in its shard, counts presence per shard, and a flush empties one shard: the other keeps its records and epoch', async () => {
    const { w } = await startedWorld({ shards: true });
    expect(w.instances.map((x) => [...x.channels].sort())).toEqual([
      ['ord:presence:0', 'ord:presence:1'],
      ['ord:presence:0', 'ord:presence:1'],
    ]);
    w.pay(0, 'O1', '233240000001');
    w.pay(1, 'O2', '233200000003');
    await idle(w);
    const [shard0, shard1] = w.shardMemories as [MemoryStore, MemoryStore];
    expect(await shard1.get(ORDER_KEYS.order('O1'))).not.toBeNull();
    expect(await shard0.get(ORDER_KEYS.order('O2'))).not.toBeNull();
    expect(await w.memory.get(ORDER_KEYS.order('O1'))).toBeNull();
    const epoch = await shard0.get(ORDER_KEYS.epoch);
    w.flush(1);
    expect(await w.shardMemories[1]!.get(ORDER_KEYS.order('O1'))).toBeNull();
    // The next look at O1 finds its shard emptied: held, and put back from the process's copy; O2's shard untouched.
    w.reconcile(0, 'O1');
    await idle(w);
    expect(await w.shardMemories[1]!.get(ORDER_KEYS.recovering)).not.toBeNull();
    expect(await shard0.get(ORDER_KEYS.recovering)).toBeNull();
    expect(await shard0.get(ORDER_KEYS.epoch)).toBe(epoch);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'pending', reference: 'O1-1' });
    expect((await stored(w, 'O2')).tries[0]).toMatchObject({ phase: 'pending', reference: 'O2-1' });
    w.provider.answer('O1-', 'COMPLETED');
    w.provider.answer('O2-', 'COMPLETED');
    await rounds(w);
    expect(w.crashes).toEqual([]);
    expect(await brokenRules(w)).toEqual([]);
    expect([...w.received.keys()]).toEqual(expect.arrayContaining(['payment:O1-1:COMPLETED', 'payment:O2-1:COMPLETED']));
  });

  it('takes one shard back to its snapshot, and the watches merge copies under that shard’s hold only', async () => {
    const { w } = await startedWorld({ shards: true, losses: 'rollback', statusReference: 'either', lists: true });
    w.snapshot();
    w.pay(0, 'O1', '233240000001');
    w.pay(1, 'O2', '233200000003');
    await idle(w);
    w.rollback(1);
    expect(await w.shardMemories[1]!.get(ORDER_KEYS.order('O1'))).toBeNull();
    expect(await w.shardMemories[0]!.get(ORDER_KEYS.order('O2'))).not.toBeNull();
    w.advance(HISTORY_INTERVAL_MS);
    await idle(w);
    expect(await w.shardMemories[1]!.get(ORDER_KEYS.recovering)).not.toBeNull();
    expect(await w.shardMemories[0]!.get(ORDER_KEYS.recovering)).toBeNull();
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'pending', reference: 'O1-1' });
    expect(w.crashes).toEqual([]);
    expect(w.brokenAtCommit).toEqual([]);
  });

  it("lags one shard's replica: the instance's reads of the other shard are the master's", async () => {
    const { w } = await startedWorld({ shards: true });
    w.lag(1, 2, 1);
    w.pay(0, 'O1', '233240000001');
    w.pay(0, 'O2', '233200000003');
    await idle(w);
    const replica = w.instances[1]!.lagging!.replica;
    expect(await replica.get(ORDER_KEYS.order('O1'))).toBeNull();
    // Instance 1 reads O2 (shard 0) from the master: its reads of the lagging replica are not spent.
    w.reconcile(1, 'O2');
    await idle(w);
    expect(w.instances[1]!.lagging).toMatchObject({ shard: 1, reads: 2 });
  });
});
