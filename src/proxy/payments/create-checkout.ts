import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckoutCreateResponse } from '../../protocol/index.js';
import type { ProxyContext } from '../context.js';
import { ProxyError } from '../errors.js';
import type { Relay } from '../relay/relay.js';
import type { CheckoutClaims } from '../tokens/claims.js';
import { newCheckoutRecord, type CheckoutRecord } from './checkout-record.js';
import { KEYS, RECORD_TTL_MS } from './keys.js';

/** The checkout state of one token: its session is being created, or exists. */
type TokenCheckout = { state: 'initiating'; startedAt: number } | { state: 'created'; checkoutId: string };

const WAIT_STEP_MS = 25;

/**
 * `POST /checkouts`: one hosted session per token. The first request claims the token
 * (`setIfAbsent co:tok:<jti>`) and calls `checkout.initialize` with the token's bound title, reference,
 * amount, description and returnUrl; concurrent requests wait for it and answer the same session, so
 * concurrent POSTs make one upstream initialize. When the initialize fails the claim is released and
 * the waiters answer UPSTREAM_UNAVAILABLE; a later POST tries again (a session nobody pays costs nothing,
 * so an unknown outcome needs no reconciliation here).
 */
export async function createCheckout(ctx: ProxyContext, relay: Relay, claims: CheckoutClaims): Promise<CheckoutCreateResponse> {
  const { store } = ctx;
  const key = KEYS.checkoutToken(claims.jti);
  const waitUntil = ctx.now() + relay.options.initiationWaitMs;
  let waited = false;

  for (;;) {
    const marker: TokenCheckout = { state: 'initiating', startedAt: ctx.now() };
    if (await store.setIfAbsent(key, JSON.stringify(marker), RECORD_TTL_MS)) {
      if (waited) {
        // The request we waited on failed: answer as it did rather than trying again ourselves.
        await store.del(key);
        throw unavailable();
      }
      return initialize(ctx, relay, claims, key);
    }
    const raw = await store.get(key);
    const state = raw === null ? null : (JSON.parse(raw) as TokenCheckout);
    if (state?.state === 'created') {
      const record = await relay.checkouts.tracker.read(state.checkoutId);
      if (!record) throw new ProxyError('NOT_FOUND', 'This checkout session is no longer available.');
      return createResponse(record);
    }
    if (state?.state === 'initiating' && ctx.now() - state.startedAt > relay.options.initiationLeaseMs && raw !== null) {
      // Its request died mid-call: take the claim over.
      if (await store.compareAndSet(key, raw, JSON.stringify(marker), RECORD_TTL_MS)) return initialize(ctx, relay, claims, key);
      continue;
    }
    if (ctx.now() > waitUntil) throw unavailable();
    waited = true;
    await sleep(WAIT_STEP_MS + Math.floor(Math.random() * WAIT_STEP_MS));
  }
}

async function initialize(ctx: ProxyContext, relay: Relay, claims: CheckoutClaims, key: string): Promise<CheckoutCreateResponse> {
  let session;
  try {
    session = await ctx.client.checkout.initialize({
      title: claims.title,
      reference: claims.reference,
      amount: claims.amount,
      description: claims.description,
      returnUrl: claims.returnUrl,
    });
  } catch (err) {
    await ctx.store.del(key);
    throw err;
  }
  const record = newCheckoutRecord(session, claims.jti, ctx.now(), relay.options.deadlineMs);
  await relay.checkouts.tracker.create(record);
  const created: TokenCheckout = { state: 'created', checkoutId: record.checkoutId };
  await ctx.store.set(key, JSON.stringify(created), RECORD_TTL_MS);
  return createResponse(record);
}

/** The 201 body: where to send the customer, and the session's state in the relay's words. */
function createResponse(record: CheckoutRecord): CheckoutCreateResponse {
  return { checkoutId: record.checkoutId, checkoutUrl: record.checkoutUrl, status: record.status, expiresAt: record.expiresAt };
}

function unavailable(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', { retryable: true });
}

