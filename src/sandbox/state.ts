import { randomBytes, randomUUID } from 'node:crypto';
import type { DeliveryStatus, PaymentStatus, CheckoutStatus, PinType } from '../provider/schemas/index.js';
import type { FaultKind, ResolvedSandboxOptions } from './options.js';

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
  /**
   * Epoch ms until which the prompt can be answered on the phone (its network's lifetime, time-scaled);
   * Infinity when it never expires. Unanswered by then, the payment is FAILED (`failureCode` PROMPT_EXPIRED).
   */
  promptExpiresAt: number;
  failureCode?: string;
  completedAt: number | null;
  /** Epoch ms when the status callback was posted (once, on the final state), if it was. */
  callbackSentAt?: number;
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
  /** Number entered on the hosted page when Pay was pressed. */
  msisdn?: string;
  /** Epoch ms when a `processing` session reaches `scheduledStatus`. */
  settleAt?: number;
  /** Outcome the hosted page's payment will reach (`processing`: never settles, expires). */
  scheduledStatus?: CheckoutStatus;
}

/** A fault scripted through `POST /__sandbox/faults`: the next `remaining` matching requests fail. */
export interface ScriptedFault {
  id: string;
  kind: FaultKind;
  remaining: number;
  /** HTTP method to match (upper case), any when absent. */
  method?: string;
  /** Prefix of the request path (as the app sees it, e.g. `/gateway/v1/payment`), any when absent. */
  path?: string;
  /** Let the route handle the request, then replace its answer by the fault. */
  after: boolean;
}

/** Everything the sandbox remembers, in memory, for one `createSandbox` call. */
export class SandboxState {
  readonly outbox: OutboxEntry[] = [];
  readonly otps = new Map<string, OtpRecord>();
  /** Payments by referenceId; `paymentsByNo` maps referenceNo to referenceId. */
  readonly payments = new Map<string, PaymentRecord>();
  readonly paymentsByNo = new Map<string, string>();
  /**
   * Payment requests refused at initiation (insufficient funds): listed by the inspection view, never by a
   * status read, and their referenceNo stays free, as the provider recorded no transaction.
   */
  readonly refusedPayments: PaymentRecord[] = [];
  readonly checkouts = new Map<string, CheckoutRecord>();
  /** Account credit, charged per SMS segment. */
  readonly balance: { credit: number; intlCredit: number };
  /** Every request the sandbox answered, by route name, for tests that count upstream calls. */
  readonly requestCounts = new Map<string, number>();
  /** Faults scripted through the inspection routes, consumed in order by matching requests. */
  readonly scriptedFaults: ScriptedFault[] = [];
  /** When each API key sent its recent emails (sandbox clock), for the email rate window. */
  readonly emailHits = new Map<string, number[]>();
  /** Pending timers (payment callbacks, hung requests); cleared by `close()`. */
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

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

  /**
   * Runs `fn` after `ms` real milliseconds unless `close()` or `reset()` comes first. The timer never
   * keeps the process alive. Returns a function that cancels it.
   */
  schedule(ms: number, fn: () => void): () => void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, Math.min(Math.max(0, ms), 2_147_483_647));
    timer.unref();
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  /** Cancels every scheduled timer; the server is closing. */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * Forgets every message, OTP, payment, checkout, count, scripted fault and the email rate window, and
   * refills the credit.
   */
  reset(): void {
    this.close();
    this.outbox.length = 0;
    this.otps.clear();
    this.payments.clear();
    this.paymentsByNo.clear();
    this.refusedPayments.length = 0;
    this.checkouts.clear();
    this.requestCounts.clear();
    this.scriptedFaults.length = 0;
    this.emailHits.clear();
    this.balance.credit = this.options.initialCredit;
    this.balance.intlCredit = this.options.initialIntlCredit;
  }
}
