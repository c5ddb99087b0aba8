import { randomBytes, randomUUID } from 'node:crypto';
import type { DeliveryStatus, PaymentStatus, CheckoutStatus, PinType } from '../provider/schemas/index.js';
import type { ResolvedSandboxOptions } from './options.js';

/** An SMS the sandbox "sent" (quick, bulk, resend or OTP). */
export interface OutboxSms {
  kind: 'sms';
  /** Record identifier (`_id` of the delivery receipt). */
  id: string;
  messageId: string;
  sequenceNo: string;
  transactionId: string;
  jobId: string;
  to: string;
  from: string;
  message: string;
  type: string;
  isGlobal: boolean;
  /** Credit charged: one per segment. */
  segments: number;
  createdAt: number;
  /** Epoch ms when the receipt leaves `ACCEPTED` for `finalStatus`. */
  deliverAt: number;
  finalStatus: DeliveryStatus;
  /** messageId of the message this one resent, if any. */
  resendOf?: string;
  /** uuid of the OTP this SMS carried, if any. */
  otpId?: string;
}

/** An email the sandbox "sent". */
export interface OutboxEmail {
  kind: 'email';
  id: string;
  sequenceNo: string;
  transactionId: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text?: string;
  html?: string;
  createdAt: number;
}

export type OutboxEntry = OutboxSms | OutboxEmail;

/** A live OTP, one per recipient (a new generate replaces it). */
export interface OtpRecord {
  uuid: string;
  recipient: string;
  code: string;
  pinType: PinType;
  expiresAt: number;
  retriesLeft: number;
  /** Dead after success, retries spent or replacement. */
  dead: boolean;
}

/** A payment request received by the gateway. */
export interface PaymentRecord {
  referenceId: string;
  referenceNo: string;
  transactionId: string;
  amount: number;
  charge: number;
  totalAmount: number;
  payee: string;
  payer: string;
  narration: string;
  msisdn: string;
  callbackId: string;
  createdAt: number;
  /** Current status; PENDING until settled by schedule or by the phone page. */
  status: PaymentStatus;
  /** Epoch ms when the scheduled outcome applies (Infinity: never). */
  settleAt: number;
  /** The outcome the schedule will apply. */
  scheduledStatus: PaymentStatus;
  failureCode?: string;
  completedAt: number | null;
}

/** A hosted checkout session. */
export interface CheckoutRecord {
  checkoutId: string;
  title: string;
  reference: string;
  amount: number;
  description: string;
  returnUrl: string;
  checkoutUrl: string;
  createdAt: number;
  expiresAt: number;
  /** Status as the status read reports it (`pending` until the hosted page is used). */
  status: CheckoutStatus;
  paymentMethod?: string;
  transactionId?: string;
  completedAt?: number;
}

/** Everything the sandbox remembers, in memory, for one `createSandbox` call. */
export class SandboxState {
  readonly outbox: OutboxEntry[] = [];
  readonly otps = new Map<string, OtpRecord>();
  /** Payments by referenceId; `paymentsByNo` maps referenceNo to referenceId. */
  readonly payments = new Map<string, PaymentRecord>();
  readonly paymentsByNo = new Map<string, string>();
  readonly checkouts = new Map<string, CheckoutRecord>();
  /** Account credit, charged per SMS segment. */
  readonly balance: { credit: number; intlCredit: number };
  /** Every request the sandbox answered, by route name, for tests that count upstream calls. */
  readonly requestCounts = new Map<string, number>();

  constructor(readonly options: ResolvedSandboxOptions) {
    this.balance = { credit: options.initialCredit, intlCredit: options.initialIntlCredit };
  }

  /** Wall-clock now, in epoch ms. */
  now(): number {
    return Date.now();
  }

  /** A duration of the simulated world, in real milliseconds after the time scale. */
  scaled(ms: number): number {
    return ms * this.options.timeScale;
  }

  /** A new opaque identifier (UUID v4). */
  uuid(): string {
    return randomUUID();
  }

  /** A new ULID-shaped identifier (26 Crockford base32 characters; time-ordered prefix). */
  ulid(): string {
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    let time = this.now();
    let head = '';
    for (let i = 0; i < 10; i++) {
      head = alphabet[time % 32] + head;
      time = Math.floor(time / 32);
    }
    const bytes = randomBytes(16);
    let tail = '';
    for (let i = 0; i < 16; i++) tail += alphabet[bytes[i]! % 32];
    return head + tail;
  }

  /** Counts one answered request of the named route. */
  count(route: string): void {
    this.requestCounts.set(route, (this.requestCounts.get(route) ?? 0) + 1);
  }
}
