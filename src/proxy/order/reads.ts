import type { OrderEvent } from './events.js';
import type { Applied } from './order-book.js';
import type { OrderDeps } from './order-deps.js';
import type { Order, PaymentTerms } from './order-record.js';
import { probeTerms } from './order-rules.js';
import { transition } from './transition.js';

/**
 * The one place a read of the provider for an order is carried out (DESIGN: the order's state machine): for a
 * customer's request, the reconciler, a callback or the operator alike, it reads, applies what it read as the
 * event that carries it, and logs what the order's machine answered (a payment under our reference with other
 * terms, one adopted). `background`: nobody waits on it (the background circuit). `pass`: the order as the
 * caller has it; a read that changes nothing of it is not applied (the store is not read again for it).
 * `create`: applied to a new order when the store has none (a customer's first look).
 */
export interface ReadOptions {
  background?: boolean;
  pass?: Order;
  create?: boolean;
}

/** What a read came to: the provider could not answer (`err`), or the order after it. */
export type ReadOutcome = { kind: 'error'; err: unknown } | { kind: 'read'; found: boolean; applied: Applied };

/** Who asks for a probe of the next number: a request (its token's jti, attempts, terms or price) or the reconciler. */
export interface Asking {
  jti: string;
  maxAttempts: number;
  terms?: PaymentTerms;
  amount: number;
}

/** Reads reference number `n` of the order (the number the next try takes) and applies `payment-probed`. */
export async function probeNumber(deps: OrderDeps, ref: string, n: number, asking: Asking, options: ReadOptions = {}): Promise<ReadOutcome> {
  const reference = deps.references.attempt(ref, n);
  const read = options.background ? await deps.payments.read(reference, null, true) : await deps.payments.probe(reference);
  if (read.kind === 'error') return read;
  const result = read.kind === 'found' ? ({ kind: 'found', tx: read.tx } as const) : ({ kind: 'not-found' } as const);
  const terms = probeTerms(asking.terms ?? options.pass?.terms, asking.amount, deps.payeeName, read.kind === 'found' ? read.tx : undefined);
  const event = { type: 'payment-probed', n, jti: asking.jti, maxAttempts: asking.maxAttempts, terms, callbackId: deps.newId(), result } as const;
  const applied = await apply(deps, ref, event, options);
  if (applied !== null && read.kind === 'found' && applied.reply.kind !== 'conflict') {
    deps.logger.warn({ reference, status: read.tx.status }, "payment found upstream under a number the order's record did not hold; adopted, not sent again");
  }
  return { kind: 'read', found: read.kind === 'found', applied: applied ?? unchanged(options) };
}

/** Reads a try's reference (by its referenceId where the provider gave one) and applies `payment-read`. */
export async function readPayment(deps: OrderDeps, ref: string, reference: string, referenceId: string | null, options: ReadOptions = {}): Promise<ReadOutcome> {
  const startedAt = deps.now();
  const read = await deps.payments.read(reference, referenceId, options.background ?? false);
  if (read.kind === 'error') return read;
  const applied = await apply(deps, ref, { type: 'payment-read', reference, startedAt, result: read }, options);
  return { kind: 'read', found: read.kind === 'found', applied: applied ?? unchanged(options) };
}

/** Reads a session by its checkoutId and applies `session-read`. */
export async function readSession(deps: OrderDeps, ref: string, checkoutId: string, options: ReadOptions = {}): Promise<ReadOutcome> {
  const read = await deps.checkouts.read(checkoutId, options.background ?? false);
  if (read.kind === 'error') return read;
  if (read.kind === 'not-found') deps.logger.warn({ checkoutId }, 'a known checkout session reads as not found; reading on');
  const applied = await apply(deps, ref, { type: 'session-read', checkoutId, result: read }, options);
  return { kind: 'read', found: read.kind === 'found', applied: applied ?? unchanged(options) };
}

/**
 * Lists the order's sessions by its reference and applies `sessions-listed` (the whole list: a session of
 * ours being created that is not in it does not exist). `amount`: the asking token's price, for an order with
 * no terms yet (a listed session at another price is not ours).
 */
export async function listSessions(deps: OrderDeps, ref: string, asking: { jti: string; amount?: number }, options: ReadOptions = {}): Promise<ReadOutcome> {
  const startedAt = deps.now();
  const listed = await deps.checkouts.list(deps.references.checkout(ref), options.background ?? false);
  if (listed.kind === 'error') return listed;
  const event = { type: 'sessions-listed', startedAt, complete: true, jti: asking.jti, ...(asking.amount !== undefined ? { amount: asking.amount } : {}), createId: deps.newId(), sessions: listed.sessions } as const;
  const applied = await apply(deps, ref, event, options);
  return { kind: 'read', found: listed.sessions.length > 0, applied: applied ?? unchanged(options) };
}

/** Applies `event` (null: it changes nothing of `options.pass`, so nothing is written), logging a conflict. */
async function apply(deps: OrderDeps, ref: string, event: OrderEvent, options: ReadOptions): Promise<Applied | null> {
  if (options.pass && transition(options.pass, event, deps.env()).order === options.pass) return null;
  const applied = await deps.book.apply(ref, event, options.create ? { create: true } : {});
  if (applied.reply.kind === 'conflict') conflictLogged(deps, ref, applied.reply.reference);
  return applied;
}

function unchanged(options: ReadOptions): Applied {
  return { order: options.pass ?? null, reply: { kind: 'none' } };
}

export function conflictLogged(deps: OrderDeps, ref: string, reference: string): void {
  deps.logger.error(
    { orderReference: ref, reference },
    'the provider has a payment under this order reference with other terms (another shop on the account, or the reference reused at another price); nothing adopted, the order is refused with REFERENCE_CONFLICT: set a referencePrefix per shop',
  );
}
