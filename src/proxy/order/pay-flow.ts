import type { PaymentSnapshot } from '../../protocol/index.js';
import { toProxyError } from '../errors.js';
import type { PaymentClaims } from '../tokens/claims.js';
import { UNSEEN, type Seen } from './events.js';
import type { Applied } from './order-book.js';
import { refusal, unavailable, WAIT_STEP_MS, type OrderDeps } from './order-deps.js';
import type { Order, PaymentTerms, PaymentTry } from './order-record.js';
import { answerOf } from './payment-transitions.js';
import { listSessions, probeNumber, readPayment, type Asking } from './reads.js';
import { paymentSnapshot } from './views.js';

/** The terms a payment token fixes for its order. */
export function termsOf(claims: PaymentClaims): PaymentTerms {
  return { amount: claims.amount, currency: 'GHS', payee: claims.payee, narration: claims.narration, msisdn: claims.msisdn ?? null };
}

/**
 * `POST /payments` (DESIGN: the order's state machine): applies the `pay` event to the order and carries out
 * its reply until it is an answer. A probe reads what the provider has before the first send of an order the
 * store did not know; a send is made only by the request whose commit claimed the try, and its outcome is
 * applied as the `sent` event; a request that found a send under way waits for it and answers its outcome
 * (it never starts the next try itself).
 */
export async function payFlow(deps: OrderDeps, claims: PaymentClaims, msisdn: string): Promise<PaymentSnapshot> {
  const ref = claims.referenceNo;
  const terms = termsOf(claims);
  const lifetime = await deps.promptLifetimeMs(msisdn);
  const waitUntil = deps.now() + deps.initiationWaitMs;
  let waitedOn: number | undefined;
  const seen: Seen = { ...UNSEEN };
  for (;;) {
    if (waitedOn !== undefined) {
      const answer = await outcomeOf(deps, ref, waitedOn);
      if (answer) return answer;
    }
    const applied = await deps.book.apply(
      ref,
      () => ({ type: 'pay', jti: claims.jti, msisdn, maxAttempts: claims.maxAttempts, terms, sendId: deps.newId(), callbackId: deps.newId(), promptLifetimeMs: lifetime, seen: { ...seen } }),
      { create: true },
    );
    const reply = applied.reply;
    switch (reply.kind) {
      case 'payment':
        return snapshotOf(deps, applied, reply.ordinal);
      case 'refuse':
        throw refusal(reply);
      case 'wait': {
        waitedOn = applied.order?.tries.find((t) => t.phase === 'sending')?.ordinal;
        if (deps.now() > waitUntil) {
          // Still under way past any client's patience: answer it as it stands; the reconciler settles it.
          if (applied.order && waitedOn !== undefined) return snapshotOf(deps, applied, waitedOn);
          throw unavailable();
        }
        await deps.sleep(WAIT_STEP_MS + Math.floor(deps.random() * WAIT_STEP_MS));
        continue;
      }
      case 'probe-payment':
        if (await probePayment(deps, ref, applied, reply.n, { jti: claims.jti, maxAttempts: claims.maxAttempts, terms, amount: claims.amount })) seen.freeNumber = reply.n;
        continue;
      case 'probe-sessions':
        if (await probeSessions(deps, ref, applied, { amount: claims.amount, unreadable: true })) seen.sessionsListed = true;
        continue;
      case 'send':
        return send(deps, claims, applied, reply.ordinal);
      case 'conflict':
      case 'none':
      case 'session':
      case 'create':
        throw unavailable();
    }
  }
}

/** The outcome of a try this request waited on, once its send is over; null while it is under way. */
async function outcomeOf(deps: OrderDeps, ref: string, ordinal: number): Promise<PaymentSnapshot | null> {
  const order = await deps.book.read(ref);
  const t = order?.tries.find((x) => x.ordinal === ordinal);
  if (!order || !t || t.phase === 'sending') return null;
  if (t.phase === 'void') throw unavailable();
  const reply = answerOf(t, { kind: 'payment', ordinal });
  if (reply.kind === 'refuse') throw refusal(reply);
  return paymentSnapshot(order, t, deps.env());
}

function snapshotOf(deps: OrderDeps, applied: Applied, ordinal: number): PaymentSnapshot {
  const order = applied.order as Order;
  const t = order.tries.find((x) => x.ordinal === ordinal) as PaymentTry;
  deps.readSoon(order.ref);
  return paymentSnapshot(order, t, deps.env());
}

/**
 * Reads reference `n` (the number the next try would take) before anything is sent. True when the provider
 * has nothing under it, or, with `conflictFree` (a checkout), another's payment with other terms: none of the
 * order's. Unreadable: nothing is sent; the request fails, unless another request moved the order meanwhile
 * (then it looks again).
 */
export async function probePayment(deps: OrderDeps, ref: string, applied: Applied, n: number, asking: Asking, conflictFree = false): Promise<boolean> {
  const read = await probeNumber(deps, ref, n, asking, { create: true });
  if (read.kind === 'error') return movedOn(deps, ref, applied, read.err);
  const { reply, order } = read.applied;
  return !read.found || (conflictFree && (reply.kind === 'conflict' || order?.conflict?.reference === deps.references.attempt(ref, n)));
}

/**
 * Lists the order's checkout sessions upstream before a new try or session, and applies what it finds. True
 * once listed (or, for mobile money, once found unlistable). Unlisted: a checkout refuses; mobile money
 * (`unreadable`) goes on as with a provider that lists none (DESIGN: the provider is the ledger, what that
 * leaves to the store).
 */
export async function probeSessions(deps: OrderDeps, ref: string, applied: Applied, options: { amount: number; unreadable?: boolean }): Promise<boolean> {
  const listed = await listSessions(deps, ref, { jti: 'probe', amount: options.amount }, { create: true });
  if (listed.kind === 'read') return true;
  if (!options.unreadable) return movedOn(deps, ref, applied, listed.err);
  if ((await deps.book.read(ref))?.v !== applied.order?.v) return false;
  deps.logger.warn({ orderReference: ref }, "checkout sessions could not be listed before a mobile-money try; sent on what the order's record knows");
  await deps.book.apply(ref, { type: 'sessions-unlisted' }, { create: true });
  return true;
}

/** False when another request moved the order on since `applied` (look again); otherwise the read's error, thrown. */
export async function movedOn(deps: OrderDeps, ref: string, applied: Applied, err: unknown): Promise<false> {
  const now = await deps.book.read(ref);
  if ((now?.v ?? -1) !== (applied.order?.v ?? -1)) return false;
  throw toProxyError(err, deps.logger);
}

/** Sends the try this request claimed, and applies what came of it. */
async function send(deps: OrderDeps, claims: PaymentClaims, applied: Applied, ordinal: number): Promise<PaymentSnapshot> {
  const order = applied.order as Order;
  const t = order.tries.find((x) => x.ordinal === ordinal) as PaymentTry;
  const sendId = t.sendId as string;
  try {
    await deps.checkPromptLimits(t.msisdn, t.reference);
  } catch (err) {
    // Nothing was sent: the claim is given back (void, not counted).
    await deps.book.apply(order.ref, { type: 'sent', ordinal, sendId, msisdn: t.msisdn, result: { kind: 'not-sent' } }).catch(() => undefined);
    throw err;
  }
  const outcome = await deps.payments.send({
    amount: t.amount,
    referenceNo: t.reference,
    payee: claims.payee,
    narration: claims.narration,
    msisdn: t.msisdn,
    callbackId: t.callbackId,
    payer: claims.payer ?? t.msisdn,
  });
  let after: Applied;
  try {
    after = await deps.book.apply(order.ref, { type: 'sent', ordinal, sendId, msisdn: t.msisdn, result: outcome.result }, { keep: true });
  } catch (err) {
    if (outcome.result.kind === 'not-sent') throw toProxyError(outcome.err, deps.logger);
    // The provider may have it: the customer is told it is pending. The answer is applied again by the order's
    // next pass; until then the try is "sending" (then unknown) in the store (DESIGN: unknown blocks everything).
    deps.logger.error({ reference: t.reference, err: err instanceof Error ? err.message : String(err) }, 'payment sent but its outcome not recorded (store error); the reconciler will read it');
    return paymentSnapshot(order, t, deps.env());
  }
  if (outcome.result.kind === 'refused-generic') after = await readNow(deps, order.ref, t.reference, t.referenceId, after);
  deps.readSoon(order.ref);
  const reply = after.reply;
  if (reply.kind === 'refuse') throw refusal(reply);
  // The try the reply names: the read after a 0400 may have found the payment on another try of its number
  // (the record went back to before this try was claimed, a loss and an older copy put back, and an earlier
  // try holds the number there).
  if (reply.kind === 'payment' && after.order) return paymentSnapshot(after.order, after.order.tries.find((x) => x.ordinal === reply.ordinal) as PaymentTry, deps.env());
  throw toProxyError(outcome.err ?? new Error('payment not sent'), deps.logger);
}

/**
 * A refusal without words may mean "this reference already exists": read it before answering, so the customer
 * is told the truth (the payment found, on the number the provider has) rather than what was asked.
 */
async function readNow(deps: OrderDeps, ref: string, reference: string, referenceId: string | null, otherwise: Applied): Promise<Applied> {
  const read = await readPayment(deps, ref, reference, referenceId);
  if (read.kind === 'error') return otherwise;
  const { order } = read.applied;
  const t = order?.tries.findLast((x) => x.reference === reference);
  if (!order || !t) return otherwise;
  return { order, reply: answerOf(t, { kind: 'payment', ordinal: t.ordinal }) };
}
