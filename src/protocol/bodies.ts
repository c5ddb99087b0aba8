// The response bodies the elements read, as plain TypeScript: the browser package ships these declarations
// without zod (which only the server package installs). test/protocol/bodies.test.ts proves each equal to
// the `z.infer` of its schema in schemas.ts and errors.ts, so the two cannot drift.
import type { CheckoutViewStatus, OtpDeliveryStatus, OtpPinType, PaymentViewStatus, ProxyErrorCode } from './codes.js';

/** 200 of POST `/otp/send`. */
export interface OtpSendResponse {
  otpId: string;
  /** The number the code went to, masked (`233 24 *** **01`). */
  recipient: string;
  expiresAt: string;
  /** When a resend will be accepted (the cooldown). */
  resendAt: string;
  /** Wrong codes allowed before this code is dead. */
  attemptsLeft: number;
  pinLength: number;
  pinType: OtpPinType;
}

/** 200 of POST `/otp/verify`. */
export interface OtpVerifyResponse {
  verified: true;
  proof: string;
}

/** 200 of GET `/otp/:otpId/delivery`. */
export interface OtpDeliveryResponse {
  deliveryStatus: OtpDeliveryStatus;
}

/** 200 of POST `/accounts/lookup`. */
export interface AccountLookupResponse {
  /** Partly shown (`KWAME M.`) unless the merchant configured the full name. */
  accountName: string;
  network: string;
  /** Normalised number, digits only. */
  msisdn: string;
  /** What the customer will approve on this number, when the shop's configuration knows the charge. */
  chargeEstimate?: ChargeEstimate | null | undefined;
}

/** A charge the provider may add, estimated from the shop's configuration before anything is sent. */
export interface ChargeEstimate {
  /** The estimated charge (the provider says the exact one when the payment is made). */
  charge: number;
  /** The order's amount plus the estimated charge: what the customer will most likely approve. */
  totalAmount: number;
}

/** A payment attempt as the proxy relays it (POST `/payments`, GET `/payments/:reference` and its events). */
export interface PaymentSnapshot {
  /** This attempt's reference (the merchant's order reference plus `-N`). */
  reference: string;
  /** The merchant's order reference from the token. */
  orderReference: string;
  status: PaymentViewStatus;
  amount: number;
  charge: number;
  totalAmount: number;
  currency: string;
  /** Which try of the order this payment is (1-based), refused tries included: can exceed the `-N` of `reference`. */
  attempt: number;
  /** Further tries the order still allows after this one (every token of the order shares them). */
  attemptsLeft: number;
  /** Why a FAILED payment failed, as a protocol error code (`INSUFFICIENT_FUNDS`, `PAYMENT_FAILED`). */
  failureCode?: string | undefined;
  /** The number the prompt went to, masked (`+233 26 *** **04`): what a second tab shows. */
  msisdn?: string | undefined;
  /** When the payment request was sent (the prompt's age); null when the proxy found it upstream. */
  sentAt?: string | null | undefined;
  /** Until when the prompt can be approved on the phone, when the network's prompt lifetime is known. */
  promptExpiresAt?: string | null | undefined;
  updatedAt: string;
  completedAt: string | null;
}

/** 200 of GET `/order` (payment token): where the token's order stands. */
export interface OrderView {
  orderReference: string;
  /** The order's payment: its completed attempt, else its current one, else its last ended one; null before any. */
  payment: PaymentSnapshot | null;
  /** Tries the order still allows (every token of the order shares them). */
  attemptsLeft: number;
  /** What a new try would meet now: `open`, `payment` (show the live, unknown or completed one), `exhausted`, `other-method`. */
  next: 'open' | 'payment' | 'exhausted' | 'other-method';
  /** When the hosted checkout holds the order: its status. */
  otherMethod: { method: 'checkout' | 'mobile-money'; status: string } | null;
  /** What the customer will approve before any number is chosen, when the configuration knows the charge. */
  chargeEstimate: ChargeEstimate | null;
}

/** 201 of POST `/checkouts`. */
export interface CheckoutCreateResponse {
  checkoutId: string;
  checkoutUrl: string;
  status: string;
  expiresAt: string;
}

/** A checkout as the proxy relays it (GET `/checkouts/:checkoutId` and its events). */
export interface CheckoutSnapshot {
  checkoutId: string;
  reference: string;
  status: CheckoutViewStatus;
  amount: number;
  currency: string;
  updatedAt: string;
  completedAt: string | null;
}

/** Every error the proxy answers: the provider's own error shape. */
export interface ProxyErrorBody {
  error: ProxyErrorCode;
  message: string;
  details: {
    /** INVALID_INPUT: each bad field and what is wrong with it. */
    fields?: { path: string; message: string }[] | undefined;
    /** RATE_LIMITED (and OTP_LOCKED): seconds until a retry may succeed. */
    retryAfter?: number | undefined;
    /** OTP_INVALID: wrong tries left on this code. */
    attemptsLeft?: number | undefined;
    /** UPSTREAM_UNAVAILABLE and friends: true when the same call may be made again. */
    retryable?: boolean | undefined;
    [key: string]: unknown;
  };
}
