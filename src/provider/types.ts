import type {
  AccountHolderResponse,
  BalanceResponse,
  CheckoutInitializeRequest,
  CheckoutSession,
  CheckoutSessionList,
  CheckoutStatusResult,
  DeliveryReceiptResponse,
  EmailSendRequest,
  EmailSendResponse,
  OtpGenerateRequest,
  OtpGenerateResponse,
  OtpValidateRequest,
  OtpValidateResponse,
  PaymentInitiateRequest,
  PaymentInitiateResponse,
  PaymentStatusResponse,
  SmsBulkRequest,
  SmsBulkResponse,
  SmsQuickRequest,
  SmsResendRequest,
  SmsSendResponse,
} from './schemas/index.js';

/**
 * The provider's three interfaces, as the client's configuration names them: `messaging` (SMS, OTP, email,
 * balance), `payment` (the payment gateway) and `checkout`. Each has its own circuit breaker.
 */
export const PROVIDER_INTERFACES = ['messaging', 'payment', 'checkout'] as const;
/** One of {@link PROVIDER_INTERFACES}. */
export type ProviderInterface = (typeof PROVIDER_INTERFACES)[number];

/**
 * The two circuits of one interface: `foreground`, the calls someone waits on (a payment, its probe, a
 * session, an OTP, a lookup), and `background`, the reads a caller marks as its own schedule's (the
 * reconciler's polls): a backlog of those timing out never refuses a customer's call the provider would take.
 */
export const CIRCUIT_CALLS = ['foreground', 'background'] as const;
/** One of {@link CIRCUIT_CALLS}. */
export type CircuitCalls = (typeof CIRCUIT_CALLS)[number];

/** How one provider call ended, as the client's `onCall` is told. */
export type CallOutcome = 'ok' | 'not-found' | 'rejected' | 'rate-limited' | 'unavailable' | 'auth' | 'malformed' | 'refused';

/** One provider call (one attempt; `refused`: not sent, its circuit open), for metrics. */
export interface CallRecord {
  upstream: ProviderInterface;
  operation: string;
  calls: CircuitCalls;
  outcome: CallOutcome;
  /** Time of the attempt in seconds (0 when refused). */
  seconds: number;
}

/** State of a circuit breaker: `closed` (calls go through), `open` (failing fast) or `half-open` (a trial call goes through). */
export type CircuitStateName = 'closed' | 'open' | 'half-open';

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call (the client's own timeouts still apply). */
  signal?: AbortSignal;
  /**
   * `false` sends a GET once, without the client's retries: for a caller that wants the first answer, not
   * the best of three (a readiness check). POSTs are never retried anyway.
   */
  retry?: boolean;
  /**
   * A read of the caller's own schedule, nobody waiting on it (the reconciler's polls): it counts toward,
   * and is refused by, the interface's `background` circuit, never the one customers' calls go through.
   */
  background?: boolean;
}

/**
 * The typed client of the provider's three interfaces: one method per endpoint. Every method validates
 * its request before sending (nothing is sent when it is invalid), validates the response, and throws a
 * `ProviderError` subclass on failure. Methods resolve to the full parsed response (envelope included).
 */
export interface ProviderClient {
  sms: {
    send(body: SmsQuickRequest, options?: CallOptions): Promise<SmsSendResponse>;
    bulk(body: SmsBulkRequest, options?: CallOptions): Promise<SmsBulkResponse>;
    resend(messageId: string, body: SmsResendRequest, options?: CallOptions): Promise<SmsSendResponse>;
    receipt(sequenceNo: string, options?: CallOptions): Promise<DeliveryReceiptResponse>;
  };
  otp: {
    generate(body: OtpGenerateRequest, options?: CallOptions): Promise<OtpGenerateResponse>;
    validate(body: OtpValidateRequest, options?: CallOptions): Promise<OtpValidateResponse>;
  };
  email: {
    send(body: EmailSendRequest, options?: CallOptions): Promise<EmailSendResponse>;
  };
  account: {
    balance(options?: CallOptions): Promise<BalanceResponse>;
  };
  payments: {
    initiate(body: PaymentInitiateRequest, options?: CallOptions): Promise<PaymentInitiateResponse>;
    status(reference: string, options?: CallOptions): Promise<PaymentStatusResponse>;
    accountHolder(msisdn: string, options?: CallOptions): Promise<AccountHolderResponse>;
  };
  checkout: {
    initialize(body: CheckoutInitializeRequest, options?: CallOptions): Promise<CheckoutSession>;
    status(checkoutId: string, options?: CallOptions): Promise<CheckoutStatusResult>;
    /** Not in the specification: the sessions under one reference, where the provider lists them (the sandbox does). */
    sessions(reference: string, options?: CallOptions): Promise<CheckoutSessionList>;
  };
  /**
   * State of one interface's circuit for one kind of call; without `calls`, the worse of its foreground and
   * background circuits; without an argument, the worst of all (`open` when any is open, else `half-open` when any is),
   * for a caller that only wants to know whether all is well.
   */
  circuitState(upstream?: ProviderInterface, calls?: CircuitCalls): CircuitStateName;
}
