/**
 * The order model's scripted scenarios (DESIGN: proof): runs the model checker found, each written out in
 * test/proof/order-scenarios.json (its world, its commands, and the order in which every scheduled call went
 * on, by the piece of work it belonged to) and named here after what it proves. Each drives the same World as
 * a generated run (test/proof/model/run.ts) and checks the same rules, at every commit and at the end, with
 * no fast-check: neither its path nor the depth of the microtasks decides what a scenario runs.
 *
 * A scenario whose calls no longer come as written (the code under it changed) still runs to its end and
 * checks every rule, and says where it diverged. `SCENARIOS_WRITE=1` writes the schedules out again as they
 * ran: do that only knowing the scenario still reaches what it proves.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenario, type Scenario } from './model/script.js';

const FILE = new URL('./order-scenarios.json', import.meta.url);
const SCENARIOS = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, Scenario & { found: string }>;
const rewritten: Record<string, string[]> = {};

/** The scenario runs as written and keeps every rule. */
async function keeps(name: string): Promise<void> {
  const { broken, diverged, ran } = await runScenario(SCENARIOS[name]!);
  rewritten[name] = ran;
  expect(broken).toEqual([]);
  // A scenario the code under it no longer lets keep to its schedule still checked every rule: said, not failed.
  if (diverged.length > 0) console.warn(`${name}: ${diverged.length} calls did not come as written (first: ${diverged[0]})`);
}

afterAll(() => {
  if (process.env['SCENARIOS_WRITE'] !== '1') return;
  for (const [name, ran] of Object.entries(rewritten)) SCENARIOS[name]!.schedule = ran;
  writeFileSync(FILE, layout(SCENARIOS));
});

/** The scenarios' file as it is kept: a command, or a segment of a schedule, a line. */
function layout(all: Record<string, Scenario & { found: string }>): string {
  const spaced = (x: unknown) => JSON.stringify(x).replace(/,(["{\d])/g, ', $1').replace(/":/g, '": ');
  const list = (items: readonly unknown[]) => items.map((x) => `      ${spaced(x)}`).join(',\n');
  const one = ([name, s]: [string, Scenario & { found: string }]) =>
    [`  ${JSON.stringify(name)}: {`, `    "found": ${JSON.stringify(s.found)},`, `    "world": ${spaced(s.world)},`, `    "seed": ${s.seed},`, `    "commands": [\n${list(s.commands)}\n    ],`, `    "schedule": [\n${list(s.schedule)}\n    ]`, '  }'].join('\n');
  return `{\n${Object.entries(all).map(one).join(',\n')}\n}\n`;
}

describe('the order model\'s scenarios', () => {
  // Found by the long run once a third process could join (seed 753593583, shrunk to path 180:0:349): after a
  // flush, a process put back its older copy of an order and wrote on from it, to the version a lost write of
  // another process had had; that process took the stored record for its own, and the try it had sent (its
  // answer lost, landed late, completed) was never read or reported. Since 21aa6d9 (a copy put back has the
  // provider's history read again) this run no longer reaches that bug; with its fix reverted (order-book.ts,
  // the merge of a stored record as high as the copy), the replay of seed 1060534075 below fails instead.
  it('loses no completion when a version put back from an older copy is written on to the version a lost one had', () => keeps('put-back-older-copy'));

  // Found by the long run (seed 1053646716, path 987:0): a try's request still on its way past its lease and
  // the grace, the try void after two reads that did not find it; the next try took its number again but was
  // never sent (the gateway down); the first request then landed and completed, and nobody read it: the try
  // not sent held the number.
  it('reads and reports a late completion under a number that a try never sent took again', () => keeps('late-completion-number-taken-again'));

  // Found by the long run (seed 1060534075, the path below): the store flushed while a process's try was on
  // its way; the order begun again elsewhere, a customer's try there took the same number but was never sent;
  // the first process's copy was then not joined (the record had a try of its number), and its completion
  // was never reported.
  it('joins a copy’s try whose number the record gave only to a try never sent', () => keeps('join-copy-try-never-sent'));

  // Found once the operator could act mid-run (seed 534681019, path 14157): status read by referenceId only; a
  // try's request on its way past the grace, the operator found nothing at the provider and resolved it absent;
  // the request then landed and was approved. The operator's void was not read on and the callback naming its
  // referenceId was dropped: the completion was never reported.
  it('reports a completion that landed after the operator resolved its try absent', () => keeps('landed-after-operator-absent'));

  // Found by the long run (seed 1074932198, path 968:0:0): after a flush, a checkout began the order again
  // (no payment terms); a process's copy joined it with a try of its own, and a read of that try's number found
  // another shop's payment under it. With no terms to compare, it was adopted and reported as this order's.
  it('adopts no other shop’s payment through a try joined to a record begun again by a checkout', () => keeps('no-foreign-through-join'));

  // Found by the long run on 18c1124 (seed 1088238901, path 427, the `clock` era): a session's creation
  // unknown, the operator found nothing and said "absent"; the proxy's check could read nothing (no checkoutId
  // yet), and the creation's answer came before the word was applied: the session just opened, its URL on the
  // way to the customer, was void. The customer paid it; the completion was never reported.
  it('takes no "absent" for a session whose creation was answered while the word was checked', () => keeps('session-absent-while-created'));

  // Found by npm run proof:long on 21aa6d9 (seed 1097043226, run 297 of its chunk): a session read completed,
  // its commit ran and its answer was lost; the store was flushed before the message was delivered. One process
  // put back its copy with the session open; another then put back its newer copy, completed, over that older
  // version, with no message for what came after it: the completion was never reported.
  it('reports a completion put back over an older version of its record after a flush', () => keeps('completion-put-back-over-older'));

  // Found by npm run proof:model on 0a5fc68 (seed 1097727673, run 865 of its chunk): a refused try's number
  // taken again by the next try, on its way when the store was flushed; an older copy, the refusal only, was
  // put back first, and the next try, on the version the copy put back took, was left out of the join: its
  // completion was never read or reported.
  it('joins a try that took a refused try’s number to the older copy put back before it', () => keeps('join-try-refused-number'));

  // Found by the checker's `late` era when it began (seed 1001, run 2746 of a 20,000-run chunk): a try
  // declined and completed by the provider half a minute later, with no callback; the customer's next try,
  // sent meanwhile, left pending by the provider past its deadline and the window. The declined try's reads
  // waited for the live one to end, and its completion was never reported.
  it('reports a declined try’s late completion while the next try stays pending past its deadline', () => keeps('declined-late-completion-next-pending'));

  // Found by the `late` era's long run on 7db7758 (seed 3591714842681, run 962): it never ended. A try void
  // because nobody found it, its number taken again by a try refused in words: a process whose copy was a
  // version behind joined the void try to the record again (the record's try of that number was another
  // send), and two processes joined each other's copies for ever, the record growing each turn. The world
  // now fails a run whose record grows past any run's need, so this replay fails, not hangs, without the fix.
  it('joins a stale copy’s void try to the record that has it once, not again at every load', () => keeps('stale-copy-void-try-once'));

  // Found by the `late` era's long run on 1794852 (seed 1122183213, run 600 of its chunk): a try's request
  // lost on its way and landing late, the operator's word "absent" meanwhile; the next try took its number and
  // was refused in words (insufficient funds). The refused try held the number, so nobody read the void one,
  // and its late landing, completed, was never reported. Before 1794852 the run passed only because the join,
  // not idempotent, kept putting the void try back at the end of the record.
  it('reads a late landing under a number a try refused in words took again', () => keeps('late-landing-refused-number'));

  // Found by the `ledger` era (seed 22, run 996): a process claimed a try (its `sentAt`) and sent it 25 s
  // later, past its lease (a store call stalled, the clock moved on); the gateway answered 0400 without words
  // and processed the request all the same. Two reads a few ms after the real send, but past the grace after
  // the claim, took the 0400 for a refusal, and the payment, landing 83 ms after its send and completed, was
  // never read again nor reported. The grace now counts from the answer that left the outcome unknown.
  it('takes no 0400 for a refusal by reads made before the grace after the answer, when the send left past its lease', () => keeps('0400-grace-from-answer'));

  // Found by the `ledger` era's long run (seed -703187295): a process's first reading of the store's clock
  // (Redis TIME) was answered after a 60 s stall; counted for the middle of its trip, it set the process's
  // clock 30 s ahead, past the grace. Its reads, made ms after a 0400 without words, were taken for reads a
  // grace after it: the 0400 was judged a refusal while its payment was landing, completed, never reported.
  // A reading whose round trip is longer than `CLOCK_MAX_TRIP_MS` is now read again.
  it("takes no reading of the store's clock from a stalled round trip (a process set ahead past the grace)", () => keeps('stalled-clock-reading'));

  // Found by CI's long run (its log kept the run, not the seed: run again under other orders of its calls,
  // seed 1 path 135 broke the rule): a checkout read the order; a try of the same process was claimed and
  // sent; the store went back behind the claim (a restart from a snapshot); the checkout's write went through
  // on the older record, and the process's copy became that record. The try was forgotten by the store and
  // by the copy that should have put it back, and its completion was never reported. A copy that moved on
  // since a write's read now keeps what it knew (`OrderCopies.keep`).
  it('keeps in a process\'s copy the try a write on a record gone back behind it did not have, and reports its completion', () => keeps('copy-keeps-try-store-went-back'));
});
