import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckoutCreateResponse } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { ProxyError } from '../errors.js';
import { isLiveCheckout, type CheckoutOrder } from '../relay/checkout-tracker.js';
import type { Relay } from '../relay/relay.js';
import type { CheckoutClaims } from '../tokens/claims.js';
import { newCheckoutRecord, type CheckoutRecord } from './checkout-record.js';
import { checkCheckoutUrl } from './checkout-url.js';
import { updateJson } from './json-record.js';
import { KEYS, RECORD_TTL_MS } from './keys.js';
import { claimMethod, methodProbe } from './order-method.js';

const WAIT_STEP_MS = 25;

/**
 * `POST /checkouts`: one live hosted session per order reference (DESIGN: payment attempts and money
 * safety). A completed session answers every later request; a pending or processing one is reused; a new
 * one is initialised only when every earlier one expired, failed or was cancelled. The first session fixes
 * the order's terms (amount, title, description): a token with others is refused with `ORDER_CHANGED`.
 * While the order is being paid by mobile money, a checkout is refused (`ORDER_IN_OTHER_PAYMENT`).
 * Concurrent requests wait for the one initialising and answer its session.
 */
export async function createCheckout(ctx: ProxyContext, relay: Relay, claims: CheckoutClaims): Promise<CheckoutCreateResponse> {
  const { store } = ctx;
  const key = KEYS.checkoutOrder(claims.reference);
  const terms = { amount: claims.amount, title: claims.title, description: claims.description };
  const waitUntil = ctx.now() + relay.options.initiationWaitMs;
  const empty: CheckoutOrder = { reference: claims.reference, sessions: [] };
  await store.setIfAbsent(key, JSON.stringify(empty), RECORD_TTL_MS);

  for (;;) {
    const raw = await store.get(key);
    if (raw === null) {
      await store.setIfAbsent(key, JSON.stringify(empty), RECORD_TTL_MS);
      continue;
    }
    const order = JSON.parse(raw) as CheckoutOrder;
    const changed = order.terms ? (Object.keys(terms) as Array<keyof typeof terms>).filter((k) => order.terms![k] !== terms[k]) : [];
    if (changed.length > 0) {
      throw new ProxyError('ORDER_CHANGED', 'This order was changed after its checkout started. Reload the page.', { changed });
    }
    const sessions = await relay.checkouts.tracker.sessions(claims.reference);
    const now = ctx.now();
    const usable = sessions.find((s) => s.status === 'completed') ?? sessions.findLast((s) => isLiveCheckout(s, now));
    if (usable) return createResponse(usable);
    if (order.creating && now - order.creating.startedAt <= relay.options.initiationLeaseMs) {
      if (now > waitUntil) throw unavailable();
      await sleep(WAIT_STEP_MS + Math.floor(Math.random() * WAIT_STEP_MS));
      continue;
    }
    await claimMethod(ctx, claims.reference, 'checkout', methodProbe(relay), relay.options.initiationLeaseMs);
    const claimed: CheckoutOrder = { ...order, terms: order.terms ?? terms, creating: { startedAt: now } };
    if (!(await store.compareAndSet(key, raw, JSON.stringify(claimed), RECORD_TTL_MS))) continue;
    return initialize(ctx, relay, claims, key);
  }
}

async function initialize(ctx: ProxyContext, relay: Relay, claims: CheckoutClaims, key: string): Promise<CheckoutCreateResponse> {
  const release = (sessionId?: string) =>
    updateJson<CheckoutOrder>(
      ctx.store,
      key,
      (order) => {
        const { creating: _creating, ...rest } = order;
        return sessionId ? { ...rest, sessions: [...rest.sessions, sessionId] } : rest;
      },
      RECORD_TTL_MS,
    );
  let record: CheckoutRecord;
  try {
    const session = await ctx.client.checkout.initialize({
      title: claims.title,
      reference: claims.reference,
      amount: claims.amount,
      description: claims.description,
      returnUrl: claims.returnUrl,
    });
    checkCheckoutUrl(ctx, session.checkoutUrl);
    record = newCheckoutRecord(session, claims.jti, ctx.now(), relay.options.deadlineMs);
    // A session nobody was sent to costs nothing: on any failure the order simply has no session yet.
    await relay.checkouts.tracker.create(record);
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
  await release(record.checkoutId);
  return createResponse(record);
}

/** The 201 body: where to send the customer, and the session's state in the relay's words. */
function createResponse(record: CheckoutRecord): CheckoutCreateResponse {
  return { checkoutId: record.checkoutId, checkoutUrl: record.checkoutUrl, status: record.status, expiresAt: record.expiresAt };
}

function unavailable(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', { retryable: true });
}

