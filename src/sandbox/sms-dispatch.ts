import { randomBytes } from 'node:crypto';
import type { DeliveryStatus } from '../provider/schemas/index.js';
import { countSegments } from './segments.js';
import type { OutboxSms, SandboxState } from './state.js';
import { TEST_NUMBERS } from './test-numbers.js';
import type { Refusal } from './messaging-validation.js';

/** Simulated milliseconds an SMS stays `ACCEPTED` before its final delivery status (scaled by timeScale). */
export const DELIVERY_DELAY_MS = 2_000;

/** Messages per batch of a send (DESIGN: bulk limits). */
export const BATCH_SIZE = 100;

/** One SMS to send. */
export interface SmsDraft {
  to: string;
  from: string;
  message: string;
  type: string;
  resendOf?: string;
  otpId?: string;
}

/** A Mongo-style record identifier (24 hex digits), as the receipt's `_id` suggests. */
function recordId(): string {
  return randomBytes(12).toString('hex');
}

/** The delivery status an SMS to `to` will end in: the test number's, else `DELIVERED`. */
export function finalStatusOf(to: string): DeliveryStatus {
  return TEST_NUMBERS[to]?.sms ?? 'DELIVERED';
}

/**
 * "Sends" SMS: counts their segments, charges one credit per segment from `credit` (or `intlCredit` when
 * `isGlobal`), and pushes them to the outbox in batches of 100 (one jobId per batch). When the credit does
 * not cover every message, nothing is sent or charged and the refusal is `INSUFFICIENT_CREDIT`.
 */
export function dispatchSms(
  state: SandboxState,
  drafts: readonly SmsDraft[],
  isGlobal: boolean,
): { ok: true; sent: OutboxSms[][] } | { ok: false; refusal: Refusal } {
  const segments = drafts.map((d) => countSegments(d.message).segments);
  const required = segments.reduce((a, b) => a + b, 0);
  const pool = isGlobal ? 'intlCredit' : 'credit';
  const available = state.balance[pool];
  if (required > available) {
    return {
      ok: false,
      refusal: {
        code: 'INSUFFICIENT_CREDIT',
        message: `Insufficient ${isGlobal ? 'international ' : ''}credit: ${required} needed, ${available} left. Nothing was sent.`,
        details: { required, available, pool },
      },
    };
  }
  state.balance[pool] = available - required;

  const now = state.now();
  const batches: OutboxSms[][] = [];
  drafts.forEach((draft, i) => {
    if (i % BATCH_SIZE === 0) batches.push([]);
    const batch = batches[batches.length - 1]!;
    const jobId = batch[0]?.jobId ?? state.uuid();
    const sms: OutboxSms = {
      kind: 'sms',
      id: recordId(),
      messageId: state.uuid(),
      sequenceNo: state.ulid(),
      transactionId: state.uuid(),
      jobId,
      to: draft.to,
      from: draft.from,
      message: draft.message,
      type: draft.type,
      isGlobal,
      segments: segments[i]!,
      createdAt: now,
      deliverAt: now + state.scaled(DELIVERY_DELAY_MS),
      finalStatus: finalStatusOf(draft.to),
    };
    if (draft.resendOf !== undefined) sms.resendOf = draft.resendOf;
    if (draft.otpId !== undefined) sms.otpId = draft.otpId;
    batch.push(sms);
    state.outbox.push(sms);
  });
  return { ok: true, sent: batches };
}

/** Finds a sent SMS by any of its identifiers: messageId, sequenceNo, transactionId or record id. */
export function findSms(state: SandboxState, identifier: string): OutboxSms | undefined {
  return state.outbox.find(
    (e): e is OutboxSms =>
      e.kind === 'sms' &&
      (e.messageId === identifier || e.sequenceNo === identifier || e.transactionId === identifier || e.id === identifier),
  );
}

/** Finds a sent SMS by its sequenceNo. */
export function findSmsBySequenceNo(state: SandboxState, sequenceNo: string): OutboxSms | undefined {
  return state.outbox.find((e): e is OutboxSms => e.kind === 'sms' && e.sequenceNo === sequenceNo);
}
