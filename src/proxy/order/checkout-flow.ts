import type { CheckoutCreateResponse } from '../../protocol/index.js';
import { toProxyError } from '../errors.js';
import type { CheckoutClaims } from '../tokens/claims.js';
import { UNSEEN, type Seen } from './events.js';
import type { Applied } from './order-book.js';
import { refusal, unavailable, WAIT_STEP_MS, type OrderDeps } from './order-deps.js';
import type { CheckoutTerms, CheckoutTry, Order } from './order-record.js';
import { probePayment, probeSessions } from './pay-flow.js';

/**
 * `POST /checkouts` (DESIGN: the order's state machine): applies the `checkout` event and carries out its
 * reply until it is an answer: a probe of what the provider has for an order the store did not know, the one
 * creation the committing request claimed (its outcome applied as `created`), or a wait on another's.
 */
export async function checkoutFlow(deps: OrderDeps, claims: CheckoutClaims): Promise<CheckoutCreateResponse> {
  const ref = claims.reference;
  const terms: CheckoutTerms = { amount: claims.amount, title: claims.title, description: claims.description };
  const waitUntil = deps.now() + deps.initiationWaitMs;
  const seen: Seen = { ...UNSEEN };
  for (;;) {
    const applied = await deps.book.apply(ref, () => ({ type: 'checkout', jti: claims.jti, terms, createId: deps.newId(), seen: { ...seen } }), { create: true });
    const reply = applied.reply;
    switch (reply.kind) {
      case 'session':
        return answer(applied, reply.ordinal);
      case 'refuse':
        throw refusal(reply);
      case 'wait':
        if (deps.now() > waitUntil) throw unavailable();
        await deps.sleep(WAIT_STEP_MS + Math.floor(deps.random() * WAIT_STEP_MS));
        continue;
      case 'probe-sessions':
        if (await probeSessions(deps, ref, applied, { amount: claims.amount })) seen.sessionsListed = true;
        continue;
      case 'probe-payment':
        if (await probePayment(deps, ref, applied, reply.n, { jti: claims.jti, maxAttempts: 1, amount: claims.amount }, true)) seen.freeNumber = reply.n;
        continue;
      case 'create':
        return create(deps, claims, applied, reply.ordinal);
      default:
        throw unavailable();
    }
  }
}

function answer(applied: Applied, ordinal: number): CheckoutCreateResponse {
  const s = (applied.order as Order).sessions.find((x) => x.ordinal === ordinal) as CheckoutTry;
  return { checkoutId: s.checkoutId ?? '', checkoutUrl: s.checkoutUrl ?? '', status: s.status, expiresAt: s.expiresAt ?? new Date(0).toISOString() };
}

/** Creates the session this request claimed, and applies what came of it. */
async function create(deps: OrderDeps, claims: CheckoutClaims, applied: Applied, ordinal: number): Promise<CheckoutCreateResponse> {
  const order = applied.order as Order;
  const s = order.sessions.find((x) => x.ordinal === ordinal) as CheckoutTry;
  const outcome = await deps.checkouts.create({
    title: claims.title,
    reference: deps.references.checkout(order.ref),
    amount: claims.amount,
    description: claims.description,
    returnUrl: claims.returnUrl,
  });
  const after = await deps.book.apply(order.ref, { type: 'created', ordinal, createId: s.createId, result: outcome.result }, { keep: true });
  deps.readSoon(order.ref);
  const reply = after.reply;
  if (reply.kind === 'session' && after.order) return answer(after, reply.ordinal);
  if (reply.kind === 'refuse') throw refusal(reply);
  throw toProxyError(outcome.err ?? new Error('checkout not created'), deps.logger);
}
