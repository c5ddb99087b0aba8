import type { DeliveryStatus } from '../provider/schemas/index.js';
import { findCheckout } from './checkout-sessions.js';
import { refreshPayment } from './payments.js';
import type { OutboxEntry, OutboxSms, SandboxState, ScriptedFault } from './state.js';

/** Filters of `GET /__sandbox/outbox`. */
export interface OutboxFilter {
  /** An SMS recipient (digits) or an email address in to, cc or bcc. */
  to?: string;
  kind?: 'sms' | 'email';
}

/** The delivery status an SMS receipt reports at `now`: ACCEPTED until `deliverAt`, then the final one. */
export function deliveryStatusOf(sms: OutboxSms, now: number): DeliveryStatus {
  return now >= sms.deliverAt ? sms.finalStatus : 'ACCEPTED';
}

/** Outbox entries newest first, matching the filter. */
export function outboxEntries(state: SandboxState, filter: OutboxFilter = {}): OutboxEntry[] {
  const to = filter.to?.trim().toLowerCase();
  return state.outbox
    .filter((entry) => !filter.kind || entry.kind === filter.kind)
    .filter((entry) => {
      if (!to) return true;
      if (entry.kind === 'sms') return entry.to === to;
      return [...entry.to, ...entry.cc, ...entry.bcc].some((address) => address.toLowerCase() === to);
    })
    .sort((a, b) => b.createdAt - a.createdAt || state.outbox.indexOf(b) - state.outbox.indexOf(a));
}

/** An outbox entry as JSON: dates in ISO 8601, an SMS with its current delivery status. */
export function outboxView(entry: OutboxEntry, now: number): Record<string, unknown> {
  if (entry.kind === 'email') return { ...entry, createdAt: iso(entry.createdAt) };
  return {
    ...entry,
    createdAt: iso(entry.createdAt),
    deliverAt: iso(entry.deliverAt),
    deliveryStatus: deliveryStatusOf(entry, now),
  };
}

/** Every payment received, newest first, brought up to date, as JSON. */
export function paymentsView(state: SandboxState): Record<string, unknown>[] {
  const now = state.now();
  return [...[...state.payments.values()].map((record) => refreshPayment(record, now)), ...state.refusedPayments]
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((p) => ({
      referenceId: p.referenceId,
      referenceNo: p.referenceNo,
      transactionId: p.transactionId,
      status: p.status,
      msisdn: p.msisdn,
      payer: p.payer,
      payee: p.payee,
      narration: p.narration,
      amount: p.amount,
      charge: p.charge,
      totalAmount: p.totalAmount,
      callbackId: p.callbackId,
      createdAt: iso(p.createdAt),
      settleAt: Number.isFinite(p.settleAt) ? iso(p.settleAt) : null,
      promptExpiresAt: Number.isFinite(p.promptExpiresAt) ? iso(p.promptExpiresAt) : null,
      completedAt: p.completedAt === null ? null : iso(p.completedAt),
      failureCode: p.failureCode ?? null,
      callbackSentAt: p.callbackSentAt === undefined ? null : iso(p.callbackSentAt),
    }));
}

/** Every checkout session, newest first, brought up to date, as JSON. */
export function checkoutsView(state: SandboxState): Record<string, unknown>[] {
  return [...state.checkouts.keys()]
    .map((id) => findCheckout(state, id))
    .filter((c) => c !== undefined)
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((c) => ({
      ...c,
      createdAt: iso(c.createdAt),
      expiresAt: iso(c.expiresAt),
      settleAt: c.settleAt === undefined ? null : iso(c.settleAt),
      completedAt: c.completedAt === undefined ? null : iso(c.completedAt),
    }));
}

/** A scripted fault as JSON. */
export function faultView(fault: ScriptedFault): Record<string, unknown> {
  return {
    id: fault.id,
    kind: fault.kind,
    remaining: fault.remaining,
    method: fault.method ?? null,
    path: fault.path ?? null,
    after: fault.after,
  };
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
