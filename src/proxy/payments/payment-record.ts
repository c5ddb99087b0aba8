import {
  FINAL_PAYMENT_VIEW_STATUSES,
  type PaymentSnapshot,
  type PaymentViewStatus,
} from '../../protocol/index.js';
import type { PaymentTransaction } from '../../provider/schemas/index.js';

/**
 * How much the proxy knows of an attempt upstream:
 * - `initiating`: `POST /v1/payment` in flight;
 * - `unknown`: it failed in a way that may have created the payment (timeout, reset, 500): the relay
 *   reads status by `referenceNo` until it knows;
 * - `known`: the provider acknowledged it (or a status read found it);
 * - `void`: the provider certainly never processed it (refused before processing, or reconciled as not
 *   found); status FAILED with failureCode UPSTREAM_UNAVAILABLE, and it does not use up an attempt.
 */
export type UpstreamPhase = 'initiating' | 'unknown' | 'known' | 'void';

/** Everything the proxy keeps of one payment attempt (stored as JSON under `pay:rec:<reference>`). */
export interface PaymentRecord {
  /** The attempt's upstream `referenceNo` (`ORDER-123-1`). */
  reference: string;
  orderReference: string;
  /** jti of the token that made the attempt. */
  jti: string;
  attempt: number;
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
  /** After this (epoch ms) a payment still pending is reported TIMED_OUT and no longer polled. */
  deadlineAt: number;
  completedAt: string | null;
  /** Status reads in a row that answered `0404` while the outcome was unknown. */
  notFoundReads: number;
  /** Monotonic per reference; the SSE `id`. Bumped by every stored change. */
  seq: number;
}

/** Payments never change after these. */
export function isFinalPaymentStatus(status: PaymentViewStatus): boolean {
  return FINAL_PAYMENT_VIEW_STATUSES.includes(status);
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
    attempt: record.attempt,
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
  if (tx.status === 'FAILED') next.failureCode = record.failureCode ?? 'PAYMENT_FAILED';
  else delete next.failureCode;
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
