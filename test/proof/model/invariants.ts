/**
 * The money rules, checked on the truth (the scripted provider's records) and on what the merchant received,
 * after a run has quiesced: nothing left to read, every notification delivered.
 */
import { ORDER_KEYS } from '../../../src/proxy/order/keys.js';
import type { Order } from '../../../src/proxy/order/order-record.js';
import { maskPhone } from '../../../src/proxy/phone.js';
import { reported, type Reported } from './reported.js';
import { ORDERS, type World } from './world.js';

/** Every broken rule, one sentence each (empty when the run kept them all). */
export async function brokenRules(w: World): Promise<string[]> {
  const broken: string[] = [];
  w.provider.settle();
  const said = [...w.received.values()].map(reported);
  const { prefix } = w.config;
  broken.push(...w.brokenAtCommit);
  for (const crash of w.crashes) broken.push(`a request failed with something that is not an answer: ${crash instanceof Error ? crash.stack : String(crash)}`);

  for (const order of ORDERS) {
    const payments = [...w.provider.payments.values()].filter((p) => !p.foreign && p.referenceNo.startsWith(`${prefix}${order}-`));
    const sessions = [...w.provider.sessions.values()].filter((s) => s.reference === `${prefix}${order}`);
    // A charge the provider made after calling it final unpaid (the `late` era's flips) is not the proxy's to
    // prevent; a charge begun after the merchant was told of such a completion is.
    const reportedAt = (kind: Reported['kind'], subject: string, status: string) =>
      Math.min(...said.filter((r) => r.kind === kind && r.subject === subject && r.status === status).map((r) => w.receivedAt.get(r.id) ?? Infinity));
    const charges = [
      ...payments.filter((p) => p.status === 'COMPLETED').map((p) => ({ name: p.referenceNo, flipped: !!p.flipped, startedAt: p.landedAt ?? -Infinity, reportedAt: reportedAt('payment', p.referenceNo, 'COMPLETED') })),
      ...sessions.filter((s) => s.status === 'completed').map((s) => ({ name: s.checkoutId, flipped: !!s.flipped, startedAt: s.createdAt ?? -Infinity, reportedAt: reportedAt('checkout', s.checkoutId, 'completed') })),
    ];
    const ours = charges.filter((c) => !c.flipped);
    if (ours.length > 1) broken.push(`${order} was charged ${ours.length} times: ${ours.map((c) => c.name).join(', ')}`);
    for (const late of charges.filter((c) => c.flipped)) {
      const after = charges.filter((c) => c !== late && c.startedAt > late.reportedAt);
      if (after.length > 0) broken.push(`${order} was charged again (${after.map((c) => c.name).join(', ')}) after ${late.name}'s late completion was reported`);
    }

    for (const p of payments) {
      const completedKeys = new Set(said.filter((r) => r.kind === 'payment' && r.subject === p.referenceNo && r.status === 'COMPLETED').map((r) => r.id));
      if (p.status === 'COMPLETED' && completedKeys.size === 0) broken.push(`${p.referenceNo} completed upstream but was never reported COMPLETED`);
      if (completedKeys.size > 1) broken.push(`${p.referenceNo} was reported COMPLETED under ${completedKeys.size} keys: ${[...completedKeys].join(', ')}`);
      const wrong = said.filter((r) => r.kind === 'payment' && r.subject === p.referenceNo && ['FAILED', 'CANCELLED', 'VOID'].includes(r.status) && !/:try\d+:/.test(r.id));
      if (p.status === 'COMPLETED' && !p.flipped && wrong.length > 0) broken.push(`${p.referenceNo} completed upstream but was reported ${wrong.map((r) => r.status).join(', ')}`);
    }
    for (const s of sessions) {
      const completedKeys = new Set(said.filter((r) => r.kind === 'checkout' && r.subject === s.checkoutId && r.status === 'completed').map((r) => r.id));
      if (s.status === 'completed' && completedKeys.size === 0) broken.push(`session ${s.checkoutId} of ${order} completed upstream but was never reported completed`);
      if (completedKeys.size > 1) broken.push(`session ${s.checkoutId} was reported completed under ${completedKeys.size} keys`);
      const wrong = said.filter((r) => r.kind === 'checkout' && r.subject === s.checkoutId && ['failed', 'cancelled', 'expired'].includes(r.status));
      if (s.status === 'completed' && !s.flipped && wrong.length > 0) broken.push(`session ${s.checkoutId} completed upstream but was reported ${wrong.map((r) => r.status).join(', ')}`);
    }

    const raw = await w.memoryOf(order).get(ORDER_KEYS.order(order));
    const stored = raw ? (JSON.parse(raw) as Order) : null;
    for (const foreign of [...w.provider.payments.values()].filter((p) => p.foreign && p.referenceNo.startsWith(`${order}-`))) {
      // A charge's key names its reference; a refusal of one of our tries (`:try<n>:`) is about that try.
      const about = said.filter((r) => r.kind === 'payment' && r.subject === foreign.referenceNo && !/:try\d+:/.test(r.id));
      if (about.length > 0) broken.push(`another shop's payment ${foreign.referenceNo} was reported to this merchant (${about.map((r) => r.status).join(', ')})`);
      const adopted = stored?.tries.find((t) => t.reference === foreign.referenceNo && ['pending', 'completed', 'failed', 'cancelled'].includes(t.phase));
      if (adopted) broken.push(`another shop's payment ${foreign.referenceNo} was adopted by ${order} (${adopted.phase})`);
    }
    for (const t of stored?.tries ?? []) {
      if (!['pending', 'completed', 'failed', 'cancelled'].includes(t.phase)) continue;
      const upstream = w.provider.payments.get(t.reference);
      if (!upstream || upstream.foreign) broken.push(`${order}'s try ${t.reference} is ${t.phase} but the provider has no payment of ours under it`);
      else if (t.phase === 'pending' ? upstream.msisdn !== t.msisdn : maskPhone(upstream.msisdn) !== maskPhone(t.msisdn)) broken.push(`${order}'s try ${t.reference} says number ${t.msisdn}, the provider ${upstream.msisdn}`);
    }
  }
  return broken;
}
