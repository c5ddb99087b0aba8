import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CheckoutSnapshot, CheckoutViewStatus, PaymentSnapshot, PaymentViewStatus } from '../protocol/index.js';
import type { ProviderClient } from '../provider/types.js';
import type { ResolvedProxyConfig } from './config.js';
import type { ProxyStore } from './store/types.js';
import type { StoreClock } from './store/store-clock.js';
import type { TokenService } from './tokens/service.js';

/** A payment's state change, given to `hooks.onPaymentUpdate`. */
export interface PaymentUpdate {
  /**
   * The same on every delivery of this state change (`payment:<attemptReference>:<STATUS>`): updates are
   * delivered at least once, so store it and ignore a repeat.
   */
  idempotencyKey: string;
  /** The attempt (`snapshot.reference`) and its order (`snapshot.orderReference`). */
  snapshot: PaymentSnapshot;
  /** The status before this change; null on the first report. */
  previous: PaymentViewStatus | null;
  /**
   * True when the provider's answer is final: COMPLETED, FAILED or CANCELLED (not PENDING, TIMED_OUT, UNKNOWN or
   * VOID). COMPLETED never changes again. The provider may still complete a FAILED or CANCELLED payment (its
   * specification shows no transition after the first final status, so the proxy reads it again within the
   * reconcile window): a later update then says COMPLETED, with that status as `previous`.
   */
  final: boolean;
}

/** A checkout session's state change, given to `hooks.onCheckoutUpdate`. */
export interface CheckoutUpdate {
  /** The same on every delivery of this state change (`checkout:<checkoutId>:<status>`). */
  idempotencyKey: string;
  snapshot: CheckoutSnapshot;
  previous: CheckoutViewStatus | null;
  /** True for completed, failed, expired and cancelled; as with payments, only completed never changes again. */
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
  /**
   * Runs for every payment state change, at least once: a throw (or a crash, or a store outage) makes the
   * proxy try again with backoff, for up to a day. Dedupe by `update.idempotencyKey`.
   */
  onPaymentUpdate?(update: PaymentUpdate): void | Promise<void>;
  /** As onPaymentUpdate, for checkout sessions. */
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
  /** Current time in milliseconds (injectable for tests): the store's clock (`clock`) when there is one. */
  now(): number;
  /** The store's clock `now` reads (DESIGN: one clock); the order book makes sure it was read before a transition. */
  clock?: Pick<StoreClock, 'ensure'>;
  /** True once the process is shutting down (`proxy.markDraining()`): `/ready` answers 503. */
  draining?: () => boolean;
  /** The format the store's records are written in (`store/store-format.ts`, claimed at start-up); 1 when not given. */
  storeFormat?: () => number;
  /**
   * The shards orders are split into (DESIGN: Redis Cluster), each seen as `store` is (through the format's
   * gate); absent: `store` keeps every order.
   */
  orderStores?: readonly ProxyStore[];
}
