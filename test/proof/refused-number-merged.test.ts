/**
 * A refused try's number is taken again by the next try (the provider holds no payment under it). The store
 * is emptied while that next try is pending, and a process whose copy is older (the refusal, not the next
 * try) puts its copy back first. The process that sent the next try then joins what it knows to the record
 * put back: a try of the copy counted as known when the record had any try of its reference, the refused one
 * too, so the pending try was left out. Approved, it was never read or reported: the order looked unpaid
 * (the model checker's long run on 0a5fc68: seed 1097727673, run 865).
 */
import { describe, expect, it } from 'vitest';
import { BROKE } from './model/scripted-provider.js';
import { brokenRules } from './model/invariants.js';
import { idle, rounds, startedWorld, stored } from './model/held-world.js';
import { NUMBERS } from './model/world.js';

describe("a try that took a refused try's number, after the store was emptied", () => {
  it('is joined to the older copy put back before it, then read and reported', async () => {
    const { w, hold } = await startedWorld();
    w.pay(0, 'O1', BROKE);
    await idle(w);
    // Instance 1 reads the order once (a page's status): its copy has the refusal.
    w.reconcile(1, 'O1');
    await idle(w);
    // The next try, on instance 0, is on its way when the store is emptied.
    const request = hold('payment request on its way');
    w.pay(0, 'O1', NUMBERS[1]);
    await request.reached;
    expect((await stored(w, 'O1')).tries.map((t) => `${t.reference}:${t.phase}`)).toEqual(['O1-1:refused', 'O1-1:sending']);

    w.flush();
    // Instance 1 looks first and puts back its older copy (one version on, as high as instance 0's); instance
    // 0 then meets it, and the request lands.
    w.reconcile(1, 'O1');
    await idle(w);
    w.reconcile(0, 'O1');
    await idle(w);
    request.release();
    await idle(w);
    w.provider.answer('O1-', 'COMPLETED');
    await rounds(w);

    expect(w.crashes).toEqual([]);
    expect(await brokenRules(w)).toEqual([]);
    expect((await stored(w, 'O1')).tries.map((t) => `${t.reference}:${t.phase}`)).toEqual(['O1-1:refused', 'O1-1:completed']);
    expect([...w.received.keys()]).toContain('payment:O1-1:COMPLETED');
  });
});
