/**
 * The money rules that hold at every moment, checked at every commit of an order record (DESIGN: proof), not
 * only once a run has quiesced: a rule broken for a moment and mended later (a second live try sent, then
 * read) is found where it broke, with the command that was under way. The end-of-run rules (invariants.ts)
 * add what can only be judged once everything settled (every completion reported, charged at most once).
 */
import type { Order, PaymentTry, CheckoutTry } from '../../../src/proxy/order/order-record.js';
import { LIVE_SESSION_PHASES, LIVE_TRY_PHASES } from '../../../src/proxy/order/order-record.js';
import { isNumberLock } from '../../../src/proxy/number-keys.js';
import { isMasked, maskPhone } from '../../../src/proxy/phone.js';

/** What the provider has, as far as a commit can be checked against it (the scripted provider's records). */
export interface Truth {
  payment(referenceNo: string): { status: string; msisdn: string; foreign?: boolean } | undefined;
  session(checkoutId: string): { status: string } | undefined;
  /** Statuses the merchant was told so far: `payment <reference> <STATUS>` or `checkout <checkoutId> <status>`. */
  told(): Iterable<{ kind: 'payment' | 'checkout'; subject: string; status: string }>;
}

/** Phases that are the provider's final word: only ever becoming `completed` (a declined charge completing late). */
const FINAL_TRY: readonly PaymentTry['phase'][] = ['completed', 'failed', 'cancelled'];
const FINAL_SESSION: readonly CheckoutTry['phase'][] = ['completed', 'failed', 'cancelled', 'expired'];

/**
 * Checks each commit against the rules; keeps the highest version committed of every record id in the store's
 * history (a store that goes back to a snapshot takes that memory back with it: `save`/`restore`).
 */
export class CommitRules {
  private versions = new Map<string, number>();
  /** The order of every record id committed in the run (a shard's loss takes back only its orders' versions). */
  private readonly orderOf = new Map<string, string>();

  /**
   * `acrossLosses`: a version is never reused by a different record of the same id, even after the store lost
   * or went back (off: today's put-back of a process's copy after a flush, written on from, breaks it; see
   * DESIGN: proof). `locks`: the store is of format 2, where the number a token locks is kept as a lock.
   */
  constructor(private readonly options: { acrossLosses?: boolean; locks?: boolean } = {}) {}
  /** Every record committed in the run, by id and version (a loss forgets nothing here). */
  private readonly written = new Map<string, string>();
  /** Every try and session any commit of the run held (a loss forgets nothing here): a claim is new only once. */
  private readonly claimed = new Set<string>();

  /** The memory of versions as it is now (a store's snapshot takes it). */
  save(): Map<string, number> {
    return new Map(this.versions);
  }

  /**
   * Back to a saved memory (the store went back to its snapshot, or was emptied: none). `orders`: only the
   * versions of these orders' records go back (one shard of the store lost, the others kept their history).
   */
  restore(saved: Map<string, number> | null, orders?: ReadonlySet<string>): void {
    if (!orders) {
      this.versions = new Map(saved ?? []);
      return;
    }
    const lost = ([id]: [string, number]) => orders.has(this.orderOf.get(id) ?? '');
    this.versions = new Map([...[...this.versions].filter((x) => !lost(x)), ...[...(saved ?? [])].filter(lost)]);
  }

  /**
   * Every rule the commit of `value` over `expected` (the record's key held it; null: absent) breaks, one
   * sentence each. Only records (`ord:<ref>`) are judged.
   */
  check(expected: string | null, value: string, truth: Truth): string[] {
    if (value === expected) return [];
    const after = JSON.parse(value) as Order;
    const before = expected === null ? null : (JSON.parse(expected) as Order);
    const broken: string[] = [];
    const name = `${after.ref} (record ${after.id} v${after.v})`;

    // What the order's machine starts: a try claimed for sending or a session claimed for creating while
    // something else of the order is live. A second live thing the provider made (a request landing after
    // its try was judged void or refused, a payment found by a read, a copy's try merged after a loss) is
    // the provider's truth, read and reported; the money rules at the end judge what came of it.
    const live = liveMoney(after);
    const started = startedNow(before, after, this.claimed);
    for (const t of after.tries) this.claimed.add(`try ${t.callbackId}`);
    for (const x of after.sessions) this.claimed.add(`session ${x.createId}`);
    if (live.count > 1 && started.length > 0) broken.push(`${name} started ${started.join(', ')} with ${live.count} live at once: ${live.names.join(', ')}`);

    // Strictly rising in the store's history; with `acrossLosses`, never two different records under one id
    // and version even across a loss (a process that read v5 before it and v5 after takes one for the other).
    const highest = this.versions.get(after.id);
    if (before && before.id === after.id && after.v <= before.v) broken.push(`${name} was written over v${before.v} of the same record without a higher version`);
    else if (highest !== undefined && after.v <= highest) broken.push(`${name} was written at a version the store's history already had (v${highest})`);
    this.versions.set(after.id, Math.max(highest ?? after.v, after.v));
    this.orderOf.set(after.id, after.ref);
    if (this.options.acrossLosses) {
      const key = `${after.id} v${after.v}`;
      const was = this.written.get(key);
      if (was !== undefined && was !== value) broken.push(`${name} is a second, different record under the same id and version`);
      this.written.set(key, value);
    }

    if (before && before.id === after.id) {
      for (const t of before.tries) {
        const now = after.tries.find((x) => x.callbackId === t.callbackId);
        if (!now) broken.push(`${name} lost its try ${t.reference} (${t.phase})`);
        else if (FINAL_TRY.includes(t.phase) && now.phase !== t.phase && now.phase !== 'completed') broken.push(`${name}'s try ${t.reference} went from ${t.phase} to ${now.phase}`);
        else if (t.phase === 'completed' && now.phase !== 'completed') broken.push(`${name}'s try ${t.reference} went from completed to ${now.phase}`);
      }
      for (const s of before.sessions) {
        const now = after.sessions.find((x) => x.createId === s.createId);
        if (!now) broken.push(`${name} lost its session ${s.checkoutId ?? s.createId} (${s.phase})`);
        else if (FINAL_SESSION.includes(s.phase) && now.phase !== s.phase && now.phase !== 'completed') broken.push(`${name}'s session ${s.checkoutId} went from ${s.phase} to ${now.phase}`);
        else if (s.phase === 'completed' && now.phase !== 'completed') broken.push(`${name}'s session ${s.checkoutId} went from completed to ${now.phase}`);
      }
    }

    const locked = after.terms?.msisdn;
    if (this.options.locks && locked && !isNumberLock(locked)) broken.push(`${name} keeps the number its terms lock in full (${locked})`);

    // What the record says (and so what the customer is shown) agrees with the provider's records.
    for (const t of after.tries) {
      if (!['pending', ...FINAL_TRY].includes(t.phase)) continue;
      const upstream = truth.payment(t.reference);
      if (!upstream || upstream.foreign) broken.push(`${name}'s try ${t.reference} is ${t.phase} but the provider has no payment of ours under it`);
      else if (t.phase === 'pending' ? upstream.msisdn !== t.msisdn : maskPhone(upstream.msisdn) !== maskPhone(t.msisdn)) broken.push(`${name}'s try ${t.reference} says number ${t.msisdn}, the provider ${upstream.msisdn}`);
      else if (t.phase !== 'pending' && !isMasked(t.msisdn)) broken.push(`${name}'s try ${t.reference} is ${t.phase} and its record keeps the full number`);
      else if (t.phase === 'completed' && upstream.status !== 'COMPLETED') broken.push(`${name}'s try ${t.reference} is completed, the provider says ${upstream.status}`);
      else if ((t.phase === 'failed' || t.phase === 'cancelled') && upstream.status === 'PENDING') broken.push(`${name}'s try ${t.reference} is ${t.phase}, the provider says PENDING`);
    }
    for (const s of after.sessions) {
      if (!['open', ...FINAL_SESSION].includes(s.phase) || s.checkoutId === null) continue;
      const upstream = truth.session(s.checkoutId);
      if (!upstream) broken.push(`${name}'s session ${s.checkoutId} is ${s.phase} but the provider has no such session`);
      else if (s.phase === 'completed' && upstream.status !== 'completed') broken.push(`${name}'s session ${s.checkoutId} is completed, the provider says ${upstream.status}`);
    }
    // What the merchant was told so far: a completion the provider does not have is a lie.
    for (const r of truth.told()) {
      if (r.kind === 'payment' && r.status === 'COMPLETED' && truth.payment(r.subject)?.status !== 'COMPLETED') broken.push(`the merchant was told ${r.subject} COMPLETED, the provider says ${truth.payment(r.subject)?.status ?? 'nothing'}`);
      if (r.kind === 'checkout' && r.status === 'completed' && truth.session(r.subject)?.status !== 'completed') broken.push(`the merchant was told session ${r.subject} completed, the provider says ${truth.session(r.subject)?.status ?? 'nothing'}`);
    }
    return broken;
  }
}

/**
 * The order's live money movements as the record has them: its live tries (one per reference) and sessions
 * (one per checkoutId). A session whose creation's answer is still on its way (no checkoutId yet) and one a
 * read of the provider found meanwhile (adopted) may be the same session: they count once.
 */
/**
 * The tries and sessions `after` claims (a send or a creation begun) that no commit of the run held before
 * (`claimed`: every one so far, across losses). A copy's claim merged back after the store lost it or went
 * back is not begun again: the in-flight request a loss hides is the hold's to cover, and the money rules at
 * the end judge what came of it.
 */
export function startedNow(before: Order | null, after: Order, claimed: ReadonlySet<string> = new Set()): string[] {
  const tries = after.tries.filter((t) => t.phase === 'sending' && !claimed.has(`try ${t.callbackId}`) && !before?.tries.some((x) => x.callbackId === t.callbackId));
  const sessions = after.sessions.filter((s) => s.phase === 'creating' && !claimed.has(`session ${s.createId}`) && !before?.sessions.some((x) => x.createId === s.createId));
  return [...tries.map((t) => `try ${t.reference}`), ...sessions.map((s) => `session ${s.ordinal}`)];
}

export function liveMoney(order: Order): { count: number; names: string[] } {
  const tries = order.tries.filter((t) => LIVE_TRY_PHASES.includes(t.phase));
  const sessions = order.sessions.filter((s) => LIVE_SESSION_PHASES.includes(s.phase));
  const named = new Set(sessions.flatMap((s) => (s.checkoutId === null ? [] : [s.checkoutId])));
  const unnamed = sessions.filter((s) => s.checkoutId === null).length;
  const found = new Set(sessions.filter((s) => s.adopted && s.checkoutId !== null).map((s) => s.checkoutId)).size;
  const count = new Set(tries.map((t) => t.reference)).size + named.size + Math.max(0, unnamed - found);
  return { count, names: [...tries.map((t) => `try ${t.reference} ${t.phase}`), ...sessions.map((s) => `session ${s.ordinal} ${s.phase}${s.adopted ? ' (found)' : ''}`)] };
}
