import { ProviderRateLimitedError, ProviderUnavailableError } from '../../provider/errors.js';
import type { OrderDeps } from '../order/order-deps.js';
import type { Order } from '../order/order-record.js';
import { listSessions, probeNumber, readPayment, readSession } from '../order/reads.js';
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
    // Under the background circuit, as every read of the reconciler's: after a flush every process probes the
    // orders it restored, and that burst must never refuse a customer's payment.
    const options = { background: true, pass: order };
    const read =
      due.kind === 'payment'
        ? await readPayment(deps, ref, due.reference, due.referenceId, options)
        : due.kind === 'session'
          ? await readSession(deps, ref, due.checkoutId, options)
          : due.kind === 'probe-payment'
            ? await probeNumber(deps, ref, due.n, { jti: 'reconciler', maxAttempts: order.tries.at(-1)?.maxAttempts ?? 1, amount: order.checkoutTerms?.amount ?? 0 }, options)
            : await listSessions(deps, ref, { jti: 'reconciler' }, options);
    if (read.kind === 'error') failed ||= unavailable(read.err);
    else order = read.applied.order ?? order;
  }
  // Time passed while the provider answered: a deadline (or a lease) that ended during the reads is recorded
  // before the cadence is chosen from the order, or a try past its deadline would go to the slow cadence
  // unmarked, shown PENDING and its TIMED_OUT reported up to a slow interval late.
  if (transition(order, { type: 'tick' }, deps.env()).order !== order) order = (await deps.book.apply(ref, { type: 'tick' })).order ?? order;
  const next = await after(deps, order, lateIntervalMs);
  return failed && next !== 'done' ? { backOff: next } : next;
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
