import { randomBytes } from 'node:crypto';
import {
  FINAL_PAYMENT_VIEW_STATUSES,
  SETTLED_PAYMENT_STATUSES,
  type PaymentSnapshot,
  type PaymentViewStatus,
} from '../../protocol/index.js';
import type { PaymentTransaction } from '../../provider/schemas/index.js';
import type { OrderTerms } from './attempts.js';

/**
 * How much the proxy knows of an attempt upstream:
 * - `initiating`: `POST /v1/payment` in flight;
 * - `unknown`: it failed in a way that may have created the payment (timeout, reset, 500): the relay
 *   reads status by `referenceNo` until it knows;
 * - `known`: the provider acknowledged it (or a status read found it);
 * - `void`: the provider never processed it (refused before processing, or reconciled as not found);
 *   status VOID, and it does not use up an attempt. A void found by inference (`voidCertain` false) is
 *   still read at the slow cadence until the reconcile window ends, in case a late request lands.
 */
export type UpstreamPhase = 'initiating' | 'unknown' | 'known' | 'void';

/** Everything the proxy keeps of one payment attempt (stored as JSON under `pay:rec:<reference>`). */
export interface PaymentRecord {
  /** The attempt's upstream `referenceNo` (`ORDER-123-1`). */
  reference: string;
  orderReference: string;
  /** jti of the token that made the attempt. */
  jti: string;
  /** The number in the reference (`-N`): a free number (void or refused) is taken again by the next try. */
  attempt: number;
  /**
   * Which try of the order this is, refusals included (1-based): what the snapshot calls `attempt`. After a
   * refusal it is one more than `attempt`. Absent in records found upstream (then `attempt` stands for it).
   */
  ordinal?: number;
  attemptsLeft: number;
  /** The provider's `referenceId`, once known. */
  referenceId: string | null;
  callbackId: string;
  /** The paying number (digits). */
  msisdn: string;
  payee: string;
  narration: string;
  phase: UpstreamPhase;
  status: PaymentViewStatus;
  /** The order's terms as the token fixed them (so a lost order record can be put back whole). */
  terms?: OrderTerms;
  failureCode?: string;
  /** True when the provider refused the initiation itself (`0400`): FAILED without ever being pending. */
  refused?: boolean;
  amount: number;
  charge: number;
  totalAmount: number;
  currency: string;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  /** After this (epoch ms) a payment still pending is reported TIMED_OUT (the page stops waiting) and read slowly. */
  deadlineAt: number;
  completedAt: string | null;
  /** False for a void inferred from `0404` reads (a request delivered late may still land). */
  voidCertain?: boolean;
  /** True when the attempt was found upstream by a status read rather than made by this proxy's POST. */
  adopted?: boolean;
  /**
   * How many times this reference was sent (1 unless an earlier send was void and its number used again):
   * part of the idempotency key of its notifications, so the new send's states are not taken for the old.
   */
  sends?: number;
  /** Status reads in a row that answered `0404` while the outcome was unknown. */
  notFoundReads: number;
  /** Monotonic per reference; the SSE `id`. Bumped by every stored change. */
  seq: number;
}

/** What `adoptedRecord` builds an attempt found upstream from. */
export interface AdoptedInput {
  reference: string;
  orderReference: string;
  attempt: number;
  jti: string;
  tx: PaymentTransaction;
  terms: OrderTerms;
  now: number;
  deadlineMs: number;
}

/**
 * The record of an attempt found upstream by a status read (after the store lost it, or a request the
 * proxy wrote off landed late): what the provider says, with a fresh callback id (the old one is gone).
 */
export function adoptedRecord(input: AdoptedInput): PaymentRecord {
  const { tx, now } = input;
  const record: PaymentRecord = {
    reference: input.reference,
    orderReference: input.orderReference,
    jti: input.jti,
    attempt: input.attempt,
    attemptsLeft: 0,
    referenceId: null,
    callbackId: randomBytes(16).toString('base64url'),
    msisdn: tx.msisdn,
    payee: tx.payee,
    narration: tx.narration,
    phase: 'known',
    status: tx.status,
    terms: input.terms,
    adopted: true,
    amount: tx.amount,
    charge: tx.charge,
    totalAmount: tx.totalAmount,
    currency: 'GHS',
    createdAt: now,
    updatedAt: now,
    deadlineAt: now + input.deadlineMs,
    completedAt: tx.status === 'COMPLETED' ? normaliseIso(tx.completedAt) ?? new Date(now).toISOString() : null,
    notFoundReads: 0,
    seq: 1,
  };
  if (tx.status === 'FAILED') record.failureCode = 'PAYMENT_FAILED';
  return record;
}

/** A page stops watching after these (TIMED_OUT included). */
export function isFinalPaymentStatus(status: PaymentViewStatus): boolean {
  return FINAL_PAYMENT_VIEW_STATUSES.includes(status);
}

/** The money's own end states: the reconciler stops reading only at these (TIMED_OUT is not one). */
export function isSettledPaymentStatus(status: PaymentViewStatus): boolean {
  return SETTLED_PAYMENT_STATUSES.includes(status);
}

/** True when a status will never change again: settled, and not a void a late request could revive. */
export function isFinalForMerchant(record: PaymentRecord): boolean {
  return isSettledPaymentStatus(record.status) && !(record.status === 'VOID' && record.voidCertain === false);
}

/** A record the reconciler is done with: settled, and not a void that a late request could still revive. */
export function isReconciled(record: PaymentRecord): boolean {
  if (record.status === 'VOID') return record.voidCertain !== false;
  return isSettledPaymentStatus(record.status);
}

/** Status reads answering `0404` in a row before an unknown outcome is settled as "never created". */
export const NOT_FOUND_READS_TO_SETTLE = 2;

/** The browser's (and the merchant's) view of a payment record. */
export function toPaymentSnapshot(record: PaymentRecord): PaymentSnapshot {
  const snapshot: PaymentSnapshot = {
    reference: record.reference,
    orderReference: record.orderReference,
    status: record.status,
    amount: record.amount,
    charge: record.charge,
    totalAmount: record.totalAmount,
    currency: record.currency,
    attempt: record.ordinal ?? record.attempt,
    attemptsLeft: record.attemptsLeft,
    updatedAt: new Date(record.updatedAt).toISOString(),
    completedAt: record.completedAt,
  };
  if (record.failureCode !== undefined) snapshot.failureCode = record.failureCode;
  return snapshot;
}

/**
 * The record after a status read that found the payment, or null when nothing the browser sees changed.
 * The provider's status data carries no reason, so a FAILED payment gets `failureCode` `PAYMENT_FAILED`
 * unless something upstream (the initiation's error code) already said more.
 */
export function applyTransaction(record: PaymentRecord, tx: PaymentTransaction, now: number): PaymentRecord | null {
  const next: PaymentRecord = {
    ...record,
    phase: 'known',
    status: tx.status,
    amount: tx.amount,
    charge: tx.charge,
    totalAmount: tx.totalAmount,
    completedAt: tx.status === 'COMPLETED' ? normaliseIso(tx.completedAt) ?? new Date(now).toISOString() : null,
    notFoundReads: 0,
  };
  if (tx.status === 'FAILED') next.failureCode = record.failureCode && record.failureCode !== 'UPSTREAM_UNAVAILABLE' ? record.failureCode : 'PAYMENT_FAILED';
  else delete next.failureCode;
  delete next.voidCertain;
  return sameView(record, next) && record.phase === 'known' ? null : next;
}

/** True when the two records look the same to a watcher (so no event and no hook is due). */
export function sameView(a: PaymentRecord, b: PaymentRecord): boolean {
  return (
    a.status === b.status &&
    a.amount === b.amount &&
    a.charge === b.charge &&
    a.totalAmount === b.totalAmount &&
    a.failureCode === b.failureCode &&
    a.completedAt === b.completedAt &&
    a.attemptsLeft === b.attemptsLeft
  );
}

function normaliseIso(value: string | null): string | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
