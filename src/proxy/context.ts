import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CheckoutSnapshot, CheckoutViewStatus, PaymentSnapshot, PaymentViewStatus } from '../protocol/index.js';
import type { ProviderClient } from '../provider/types.js';
import type { ResolvedProxyConfig } from './config.js';
import type { ProxyStore } from './store/types.js';
import type { TokenService } from './tokens/service.js';

/** A payment's state change, given to `hooks.onPaymentUpdate`. */
export interface PaymentUpdate {
  snapshot: PaymentSnapshot;
  /** The status before this change; null on the first report. */
  previous: PaymentViewStatus | null;
  /** True when the status will not change again. */
  final: boolean;
}

/** A checkout session's state change, given to `hooks.onCheckoutUpdate`. */
export interface CheckoutUpdate {
  snapshot: CheckoutSnapshot;
  previous: CheckoutViewStatus | null;
  final: boolean;
}

/** What `hooks.beforeOtpSend` is asked about: the send about to happen. */
export interface OtpSendCheck {
  /** The normalised number (digits, E.164 without +). */
  recipient: string;
  ip: string;
  /** The token's purpose. */
  purpose: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The merchant's hooks. */
export interface ProxyHooks {
  /** Runs once per payment state change (and at most once per final state across instances). */
  onPaymentUpdate?(update: PaymentUpdate): void | Promise<void>;
  /** Runs once per checkout state change (and at most once per final state across instances). */
  onCheckoutUpdate?(update: CheckoutUpdate): void | Promise<void>;
  /**
   * A human check (Turnstile, reCAPTCHA) before an OTP is sent. Fails closed: false or a throw refuses
   * the send with HUMAN_CHECK_FAILED.
   */
  beforeOtpSend?(request: OtpSendCheck): boolean | Promise<boolean>;
}

/** Options of a named rate limiter. */
export interface LimiterOptions {
  points: number;
  durationSec: number;
  blockDurationSec?: number;
}

/** Everything a route or the relay needs, built once by `createMerchantProxy`. */
export interface ProxyContext {
  config: ResolvedProxyConfig;
  client: ProviderClient;
  store: ProxyStore;
  tokens: TokenService;
  logger: Logger;
  /**
   * A rate limiter on the same backend as the store (memory or Redis), memoised by name. A limiter on
   * Redis has no insurance limiter: when Redis is down `consume` rejects with an Error, not a result.
   */
  limiter(name: string, opts: LimiterOptions): RateLimiterAbstract;
  hooks: ProxyHooks;
  /** Current time in milliseconds (injectable for tests). */
  now(): number;
}
