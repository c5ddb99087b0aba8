/**
 * The order's model checker (DESIGN: proof). fast-check generates a run: how the provider reads (status by
 * referenceNo, referenceId or either; sessions listed or not), which loss the run suffers (store flushes, or
 * process restarts), and a list of commands (customers paying by mobile money and by hosted checkout on either
 * of two instances, or a third that joins later with no copy of anything, with reloads, second tabs, other
 * numbers; approvals and declines on the phone, and declines the provider completes after all; lost and late
 * answers, 503s, read errors; callbacks;
 * reconciling passes and sweeps; time passing; another shop's payment under our reference). Its scheduler
 * picks the order of every store call and every provider call of every instance, and the run owns the clock.
 * After the commands the world quiesces (callbacks delivered, late requests landed or expired, time past every
 * deadline and window, every instance sweeping and draining), and the money rules are checked (invariants.ts).
 *
 * A failure prints fast-check's seed and path; `MODEL_SEED=… MODEL_PATH=… npx vitest run
 * test/proof/order-model.test.ts` replays it bit for bit. `npm run proof:model` runs it long (vitest.proof.config.ts;
 * CI runs it with the other long proofs, `npm run proof:long`).
 */
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { modelProperty } from './model/property.js';

const runs = Number(process.env['MODEL_RUNS'] ?? 1_000);
const replay = process.env['MODEL_SEED'] ? { seed: Number(process.env['MODEL_SEED']), ...(process.env['MODEL_PATH'] ? { path: process.env['MODEL_PATH'] } : {}) } : {};

describe('the order model', () => {
  it(`keeps the money rules over ${runs} generated runs of two instances, both ways to pay, lost and late answers and losses`, async () => {
    await fc.assert(modelProperty(!!process.env['MODEL_TRACE']), { numRuns: runs, ...replay });
  }, Math.max(120_000, runs * 600));

  // Found by the long run once a third process could join (seed 753593583, shrunk to path 180:0:349): after a
  // flush, a process put back its older copy of an order and wrote on from it, to the version a lost write of
  // another process had had; that process took the stored record for its own, and the try it had sent (its
  // answer lost, landed late, completed) was never read or reported. Since 21aa6d9 (a copy put back has the
  // provider's history read again) this run no longer reaches that bug; with its fix reverted (order-book.ts,
  // the merge of a stored record as high as the copy), the replay of seed 1060534075 below fails instead.
  it('loses no completion when a version put back from an older copy is written on to the version a lost one had', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'first'), { seed: 753593583, path: '180:0:349', numRuns: 1, endOnFailure: true });
    // About 2 s alone; npm test under load took it past Vitest's 20 s.
  }, 120_000);

  // Found by the long run (seed 1053646716, path 987:0): a try's request still on its way past its lease and
  // the grace, the try void after two reads that did not find it; the next try took its number again but was
  // never sent (the gateway down); the first request then landed and completed, and nobody read it: the try
  // not sent held the number.
  it('reads and reports a late completion under a number that a try never sent took again', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'first'), { seed: 1053646716, path: '987:0', numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by the long run (seed 1060534075, the path below): the store flushed while a process's try was on
  // its way; the order begun again elsewhere, a customer's try there took the same number but was never sent;
  // the first process's copy was then not joined (the record had a try of its number), and its completion
  // was never reported.
  it('joins a copy’s try whose number the record gave only to a try never sent', async () => {
    const path = '473:63:57:6:49:37:38:38:2:2:2:2:2:28:121:145:164:167:168:73:189:201:230:126:11:61:104:81:192:118:186:188:23:141:112:49:70:70:183:183:115:126:68';
    await fc.assert(modelProperty(false, undefined, true, 'first'), { seed: 1060534075, path, numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found once the operator could act mid-run (seed 534681019, path 14157): status read by referenceId only; a
  // try's request on its way past the grace, the operator found nothing at the provider and resolved it absent;
  // the request then landed and was approved. The operator's void was not read on and the callback naming its
  // referenceId was dropped: the completion was never reported.
  it('reports a completion that landed after the operator resolved its try absent', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'operator'), { seed: 534681019, path: '14157', numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by the long run (seed 1074932198, path 968:0:0): after a flush, a checkout began the order again
  // (no payment terms); a process's copy joined it with a try of its own, and a read of that try's number found
  // another shop's payment under it. With no terms to compare, it was adopted and reported as this order's.
  it('adopts no other shop’s payment through a try joined to a record begun again by a checkout', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'operator'), { seed: 1074932198, path: '968:0:0', numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by the long run on 18c1124 (seed 1088238901, path 427, the `clock` era): a session's creation
  // unknown, the operator found nothing and said "absent"; the proxy's check could read nothing (no checkoutId
  // yet), and the creation's answer came before the word was applied: the session just opened, its URL on the
  // way to the customer, was void. The customer paid it; the completion was never reported.
  it('takes no "absent" for a session whose creation was answered while the word was checked', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'clock'), { seed: 1088238901, path: '427', numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by npm run proof:long on 21aa6d9 (seed 1097043226, run 297 of its chunk): a session read completed,
  // its commit ran and its answer was lost; the store was flushed before the message was delivered. One process
  // put back its copy with the session open; another then put back its newer copy, completed, over that older
  // version, with no message for what came after it: the completion was never reported.
  it('reports a completion put back over an older version of its record after a flush', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'now'), { seed: 1097043226, path: '297', numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by npm run proof:model on 0a5fc68 (seed 1097727673, run 865 of its chunk): a refused try's number
  // taken again by the next try, on its way when the store was flushed; an older copy, the refusal only, was
  // put back first, and the next try, on the version the copy put back took, was left out of the join: its
  // completion was never read or reported.
  it('joins a try that took a refused try’s number to the older copy put back before it', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'now'), { seed: 1097727673, path: '865', numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by the checker's `late` era when it began (seed 1001, run 2746 of a 20,000-run chunk): a try
  // declined and completed by the provider half a minute later, with no callback; the customer's next try,
  // sent meanwhile, left pending by the provider past its deadline and the window. The declined try's reads
  // waited for the live one to end, and its completion was never reported.
  it('reports a declined try’s late completion while the next try stays pending past its deadline', async () => {
    const path = '2746:26:126:18:18:49:49:96:38:38:38:83:89:89:98:135';
    await fc.assert(modelProperty(false, undefined, true, 'late'), { seed: 1001, path, numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by the `late` era's long run on 7db7758 (seed 3591714842681, run 962): it never ended. A try void
  // because nobody found it, its number taken again by a try refused in words: a process whose copy was a
  // version behind joined the void try to the record again (the record's try of that number was another
  // send), and two processes joined each other's copies for ever, the record growing each turn. The world
  // now fails a run whose record grows past any run's need, so this replay fails, not hangs, without the fix.
  it('joins a stale copy’s void try to the record that has it once, not again at every load', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'late'), { seed: 3591714842681, path: '962', numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by the `late` era's long run on 1794852 (seed 1122183213, run 600 of its chunk): a try's request
  // lost on its way and landing late, the operator's word "absent" meanwhile; the next try took its number and
  // was refused in words (insufficient funds). The refused try held the number, so nobody read the void one,
  // and its late landing, completed, was never reported. Before 1794852 the run passed only because the join,
  // not idempotent, kept putting the void try back at the end of the record.
  it('reads a late landing under a number a try refused in words took again', async () => {
    const path = '600:0:0:0:86:6:6:50:46:46:46:46:46:46:68:12:12:48:56:56:56:77:164:49:61:63:19:73';
    await fc.assert(modelProperty(false, undefined, true, 'late'), { seed: 1122183213, path, numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by the `ledger` era (seed 22, run 996): a process claimed a try (its `sentAt`) and sent it 25 s
  // later, past its lease (a store call stalled, the clock moved on); the gateway answered 0400 without words
  // and processed the request all the same. Two reads a few ms after the real send, but past the grace after
  // the claim, took the 0400 for a refusal, and the payment, landing 83 ms after its send and completed, was
  // never read again nor reported. The grace now counts from the answer that left the outcome unknown.
  it('takes no 0400 for a refusal by reads made before the grace after the answer, when the send left past its lease', async () => {
    await fc.assert(modelProperty(false, undefined, true, 'ledger'), { seed: 22, path: '996', numRuns: 1, endOnFailure: true });
  }, 120_000);

  // Found by the `ledger` era's long run (seed -703187295): a process's first reading of the store's clock
  // (Redis TIME) was answered after a 60 s stall; counted for the middle of its trip, it set the process's
  // clock 30 s ahead, past the grace. Its reads, made ms after a 0400 without words, were taken for reads a
  // grace after it: the 0400 was judged a refusal while its payment was landing, completed, never reported.
  // A reading whose round trip is longer than `CLOCK_MAX_TRIP_MS` is now read again.
  it("takes no reading of the store's clock from a stalled round trip (a process set ahead past the grace)", async () => {
    const path = '242:41:72:86:135:10:10:10:10:18:0:29:37:32:77:68:20:56:42:7:6:10';
    await fc.assert(modelProperty(false, undefined, true, 'ledger'), { seed: -703187295, path, numRuns: 1, endOnFailure: true });
  }, 120_000);

  it('replays a run alone from its seed and path exactly as it ran among the others (same steps, same end)', async () => {
    // Were anything in a run not owned by the test (a real timer, Math.random, a cache that outlives a
    // world), a run would depend on the runs before it, and a failure's seed and path would not replay it.
    const seed = Date.now() % 2 ** 31;
    const fingerprint = (f: string) => createHash('sha256').update(f).digest('hex');
    const inChunk: string[] = [];
    await fc.assert(modelProperty(false, (f) => inChunk.push(fingerprint(f))), { numRuns: 60, seed });
    const alone: Record<number, string | undefined> = {};
    const expected: Record<number, string | undefined> = {};
    for (let run = 59; run >= 0; run -= 3) {
      await fc.assert(modelProperty(false, (f) => void (alone[run] = fingerprint(f))), { numRuns: 1, seed, path: String(run) });
      expected[run] = inChunk[run];
    }
    expect(alone, `seed ${seed}`).toEqual(expected);
  }, 120_000);
});
