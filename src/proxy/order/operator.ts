import type { OrderResolution, UnresolvedOrder } from '../../protocol/index.js';
import { ProxyError } from '../errors.js';
import { maskPhone } from '../phone.js';
import { ORDER_KEYS } from './keys.js';
import { refusal, type OrderDeps } from './order-deps.js';
import { isLiveSession, isLiveTry, type Order } from './order-record.js';
import { viewStatus } from './views.js';

/**
 * The operator's part (DESIGN: unknown blocks everything): orders whose money state is not final (a try or
 * session being read, unknown, or past the reconcile window), listed with what is known of each; and their
 * resolution with the provider's word, never the operator's guess alone: a referenceId or checkoutId from the
 * provider's own records is read and taken only if it answers this order's reference with its terms (a
 * checkoutId: listed under it, where the provider lists sessions); "absent"
 * says the provider's records have nothing, and voids the try or session (logged).
 */
export async function unresolvedOrders(deps: OrderDeps, readSet: (key: string) => Promise<string[]>, limit: number): Promise<UnresolvedOrder[]> {
  const refs = new Set([...(await readSet(ORDER_KEYS.unresolved)), ...(await readSet(ORDER_KEYS.pending))]);
  const out: UnresolvedOrder[] = [];
  for (const ref of [...refs].sort()) {
    if (out.length >= limit) break;
    const order = await deps.book.read(ref);
    if (order && (order.tries.some(isLiveTry) || order.sessions.some(isLiveSession))) out.push(describe(deps, order));
  }
  return out;
}

function describe(deps: OrderDeps, order: Order): UnresolvedOrder {
  const env = deps.env();
  return {
    orderReference: order.ref,
    conflict: order.conflict?.reference ?? null,
    tries: order.tries
      .filter(isLiveTry)
      .map((t) => ({
        reference: t.reference,
        phase: t.phase,
        status: viewStatus(order, t, env),
        msisdn: maskPhone(t.msisdn),
        referenceId: t.referenceId,
        sentAt: t.sentAt === null ? null : new Date(t.sentAt).toISOString(),
      })),
    sessions: order.sessions
      .filter(isLiveSession)
      .map((s) => ({ session: s.ordinal, phase: s.phase, checkoutId: s.checkoutId, status: s.status, startedAt: new Date(s.startedAt).toISOString(), expiresAt: s.expiresAt })),
  };
}

/** The provider could not be read to check the operator's word: nothing is changed, and the call may be made again. */
function unreadable(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The provider could not be read to check this; nothing was changed. Try again in a moment.', { retryable: true });
}

/** Applies the operator's resolution of one try or session; the order as it stands after. */
export async function resolveOrder(deps: OrderDeps, ref: string, input: OrderResolution): Promise<UnresolvedOrder> {
  const order = await deps.book.read(ref);
  if (!order) throw new ProxyError('NOT_FOUND', 'No such order.');
  if ('reference' in input) {
    const t = order.tries.findLast((x) => x.reference === input.reference);
    if (!t) throw new ProxyError('NOT_FOUND', 'No such payment attempt in this order.');
    if ('referenceId' in input) {
      const read = await deps.payments.readById(t.reference, input.referenceId);
      // A read that failed says nothing of the payment: "no such payment" would send the operator to resolve
      // it absent, and a completed charge would be freed for a second one. Try again later.
      if (read.kind === 'error') throw unreadable();
      if (read.kind !== 'found') {
        throw new ProxyError('INVALID_INPUT', 'The provider has no payment with this referenceId for this attempt.', {
          fields: [{ path: 'referenceId', message: 'does not name this attempt at the provider' }],
        });
      }
      const applied = await deps.book.apply(ref, { type: 'payment-read', reference: t.reference, startedAt: deps.now(), result: read });
      if (applied.reply.kind === 'conflict') throw new ProxyError('REFERENCE_CONFLICT', 'That payment has other terms than this order.', { reference: t.reference });
    } else {
      // Checked where a read can see it: the provider's records, not the operator's reading of them.
      const read = await deps.payments.read(t.reference, t.referenceId ?? t.hintedReferenceId ?? null);
      if (read.kind === 'error') throw unreadable();
      if (read.kind === 'found') throw notAbsent(deps, ref, 'reference', `the provider has this payment (${read.tx.status}): not absent`);
      await absent(deps, ref, { reference: t.reference }, t.referenceId ?? t.hintedReferenceId ?? null);
      deps.logger.warn({ orderReference: ref, reference: t.reference }, 'operator resolved a payment attempt as absent at the provider');
    }
  } else {
    const s = order.sessions.find((x) => x.ordinal === input.session);
    if (!s) throw new ProxyError('NOT_FOUND', 'No such checkout session in this order.');
    if ('checkoutId' in input) {
      const read = await deps.checkouts.read(input.checkoutId);
      if (read.kind === 'error') throw unreadable();
      if (read.kind !== 'found') {
        throw new ProxyError('INVALID_INPUT', 'The provider has no checkout session with this checkoutId.', {
          fields: [{ path: 'checkoutId', message: 'is not a session at the provider' }],
        });
      }
      // The status read has no reference, so it cannot say whose the session is: where the provider lists
      // sessions by reference, it must be one of this order's (another shop's at our price, named by mistake,
      // was adopted and reported as this order's payment).
      if (deps.env().listsSessions) {
        const listed = await deps.checkouts.list(deps.references.checkout(ref));
        if (listed.kind === 'error') throw unreadable();
        if (!listed.sessions.some((x) => x.checkoutId === input.checkoutId)) {
          throw new ProxyError('INVALID_INPUT', "The provider's sessions under this order's reference do not include this checkoutId.", {
            fields: [{ path: 'checkoutId', message: "is not a session of this order's reference at the provider" }],
          });
        }
      }
      await deps.book.apply(ref, { type: 'sessions-listed', startedAt: deps.now(), complete: false, jti: 'operator', createId: deps.newId(), sessions: [read.session] });
    } else {
      const read = s.checkoutId === null ? null : await deps.checkouts.read(s.checkoutId);
      if (read?.kind === 'error') throw unreadable();
      if (read?.kind === 'found') throw notAbsent(deps, ref, 'session', `the provider has this session (${read.session.status}): not absent`);
      await absent(deps, ref, { sessionOrdinal: s.ordinal }, s.checkoutId);
      deps.logger.warn({ orderReference: ref, session: s.ordinal }, 'operator resolved a checkout session as absent at the provider');
    }
  }
  deps.readSoon(ref);
  const after = (await deps.book.read(ref)) as Order;
  return describe(deps, after);
}

/**
 * "Absent" said of a payment or session a read finds: refused, nothing changed (a session whose URL a
 * customer holds, voided, freed its order for a second charge), and the order read soon.
 */
function notAbsent(deps: OrderDeps, ref: string, path: 'reference' | 'session', message: string): ProxyError {
  deps.readSoon(ref);
  return new ProxyError('INVALID_INPUT', 'The provider has what this says is absent; nothing was changed.', { fields: [{ path, message }] });
}

/** Applies the operator's "absent"; refused (nothing changed) while the request may still land. */
async function absent(deps: OrderDeps, ref: string, target: { reference: string } | { sessionOrdinal: number }, checked: string | null): Promise<void> {
  const applied = await deps.book.apply(ref, { type: 'resolve-absent', target, checked });
  if (applied.reply.kind === 'refuse') throw refusal(applied.reply);
}
