import { ProviderRateLimitedError, ProviderUnavailableError } from '../../provider/errors.js';
import type { OrderDeps } from '../order/order-deps.js';
import type { OrderEvent, Reply } from '../order/events.js';
import type { Order } from '../order/order-record.js';
import { checkoutProbeTerms } from '../order/order-rules.js';
import { conflictLogged } from '../order/pay-flow.js';
import { transition } from '../order/transition.js';
import { cadence, readsDue, recheckDelay } from './reconcile-plan.js';

/**
 * What one reconciling pass decided: read again on the backoff, after this many ms, or not at all; `backOff`
 * when a read failed as unavailable (the poller waits longer than that, so an overloaded provider is not read
 * on schedule by every poller at once).
 */
export type PassResult = 'continue' | 'done' | number | { backOff: 'continue' | number };

/** A read that failed because the provider could not answer (timeout, network, 5xx, circuit open, rate limited). */
function unavailable(err: unknown): boolean {
  return err instanceof ProviderUnavailableError || err instanceof ProviderRateLimitedError;
}

/**
 * One reconciling pass over an order (DESIGN: reconcile): time passes (`tick`: leases end, deadlines pass),
 * then every read the order is owed (`readsDue`) is made and applied as an event, time passes again if a
 * deadline ended meanwhile, then the order's cadence says when to come back. An order with nothing left to
 * read leaves the reconciler's set in one compare-and-set with its record (so a try started meanwhile keeps
 * it there); one still not final at the end of the reconcile window goes to the operator's list, with an
 * error in the log.
 *
 * A read that changes nothing of the order as this pass has it is not applied: the store is not read again
 * for it. Another process may have written the order since; the read then counts as made before that write,
 * which was decided without it (a compare-and-set on the order this pass has), so the history is one the
 * store could have had. Under a flash sale nearly every read is such a one (a payment still PENDING): this
 * halved the records read and parsed per pass.
 */
export async function reconcilePass(deps: OrderDeps, ref: string, lateIntervalMs: number): Promise<PassResult> {
  await deps.book.replay(ref);
  const ticked = (await deps.book.apply(ref, { type: 'tick' })).order ?? (await deps.book.read(ref));
  if (!ticked) return 'done';
  let order: Order = ticked;
  let failed = false;
  for (const due of readsDue(order, deps.env())) {
    const startedAt = deps.now();
    if (due.kind === 'payment') {
      const read = await deps.payments.read(due.reference, due.referenceId, true);
      if (read.kind === 'error') {
        failed ||= unavailable(read.err);
        continue;
      }
      const event = { type: 'payment-read', reference: due.reference, startedAt, result: read } as const;
      const applied: { order: Order | null; reply: Reply } = changes(order, event, deps) ? await deps.book.apply(ref, event) : transition(order, event, deps.env());
      if (applied.reply.kind === 'conflict') conflictLogged(deps, ref, applied.reply.reference);
      order = applied.order ?? order;
    } else if (due.kind === 'session') {
      const read = await deps.checkouts.read(due.checkoutId, true);
      if (read.kind === 'error') {
        failed ||= unavailable(read.err);
        continue;
      }
      if (read.kind === 'not-found') deps.logger.warn({ checkoutId: due.checkoutId }, 'a known checkout session reads as not found; reading on');
      const event = { type: 'session-read', checkoutId: due.checkoutId, result: read } as const;
      if (changes(order, event, deps)) order = (await deps.book.apply(ref, event)).order ?? order;
    } else if (due.kind === 'probe-payment') {
      // Under the background circuit, as every read of the reconciler's: after a flush every process probes
      // the orders it put back, and that burst must never refuse a customer's payment. Only a changed order
      // is written (a number read free again changes nothing).
      const read = await deps.payments.read(deps.references.attempt(ref, due.n), null, true);
      if (read.kind === 'error') {
        failed ||= unavailable(read.err);
        continue;
      }
      const last = order.tries.at(-1);
      const result = read.kind === 'found' ? ({ kind: 'found', tx: read.tx } as const) : ({ kind: 'not-found' } as const);
      const terms = order.terms ?? checkoutProbeTerms(order.checkoutTerms?.amount ?? 0, deps.payeeName, read.kind === 'found' ? read.tx : undefined);
      const event = { type: 'payment-probed', n: due.n, jti: 'reconciler', maxAttempts: last?.maxAttempts ?? 1, terms, callbackId: deps.newId(), result } as const;
      if (!changes(order, event, deps)) continue;
      const applied = await deps.book.apply(ref, event);
      if (applied.reply.kind === 'conflict') conflictLogged(deps, ref, applied.reply.reference);
      else if (read.kind === 'found') deps.logger.warn({ reference: read.tx.reference, status: read.tx.status }, 'payment found upstream under a number the order\'s record did not hold; adopted');
      order = applied.order ?? order;
    } else {
      const listed = await deps.checkouts.list(deps.references.checkout(ref), true);
      if (listed.kind === 'error') {
        failed ||= unavailable(listed.err);
        continue;
      }
      const event = { type: 'sessions-listed', startedAt, complete: true, jti: 'reconciler', createId: deps.newId(), sessions: listed.sessions } as const;
      if (changes(order, event, deps)) order = (await deps.book.apply(ref, event)).order ?? order;
    }
  }
  // Time passed while the provider answered: a deadline (or a lease) that ended during the reads is recorded
  // before the cadence is chosen from the order, or a try past its deadline would go to the slow cadence
  // unmarked, shown PENDING and its TIMED_OUT reported up to a slow interval late (found by npm test under load).
  if (changes(order, { type: 'tick' }, deps)) order = (await deps.book.apply(ref, { type: 'tick' })).order ?? order;
  const next = await after(deps, order, lateIntervalMs);
  return failed && next !== 'done' ? { backOff: next } : next;
}

/** True when `event` would change the order as this pass has it (the pure transition, nothing written). */
function changes(order: Order, event: OrderEvent, deps: OrderDeps): boolean {
  return transition(order, event, deps.env()).order !== order;
}

async function after(deps: OrderDeps, order: Order, lateIntervalMs: number): Promise<'continue' | 'done' | number> {
  const next = cadence(order, deps.env());
  if (next === 'fast') return 'continue';
  if (next === 'slow') return lateIntervalMs;
  if (next === 'recheck') return recheckDelay(order, { ...deps.env(), lateIntervalMs }) ?? lateIntervalMs;
  if (!(await deps.book.settle(order, next === 'unresolved'))) return 'continue';
  if (next === 'unresolved') {
    deps.logger.error({ orderReference: order.ref }, 'order still not settled at the end of the reconcile window; no longer read (listed for the operator)');
  }
  for (const t of order.tries) deps.payments.forget(t.reference);
  return 'done';
}
