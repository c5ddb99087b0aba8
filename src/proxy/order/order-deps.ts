import type { Logger } from 'pino';
import { ProxyError } from '../errors.js';
import type { CheckoutUpstream } from '../upstream/checkout-upstream.js';
import type { PaymentUpstream } from '../upstream/payment-upstream.js';
import type { Reply, TransitionEnv } from './events.js';
import type { OrderBook } from './order-book.js';
import type { PlanEnv } from '../reconcile/reconcile-plan.js';
import type { References } from './references.js';

/**
 * What the order's flows (a customer's request, the reconciler's read) need: the book that applies
 * transitions, the provider's two money interfaces, and the clock, sleep and ids, injected so that the model
 * test owns time, order and randomness.
 */
export interface OrderDeps {
  book: OrderBook;
  payments: PaymentUpstream;
  checkouts: CheckoutUpstream;
  references: References;
  /** The shop's payee name (`payeeName`): the payee of its payment tokens unless one names another. */
  payeeName: string;
  logger: Logger;
  env(): TransitionEnv & PlanEnv;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** A new unguessable id (send ids, callback ids, creation ids). */
  newId(): string;
  /** A number in [0, 1) (jitter). */
  random(): number;
  /** How long a request waits on another's send or creation under way before answering with what it has. */
  initiationWaitMs: number;
  /** Refuses (throws RATE_LIMITED) a new prompt to a number past the per-number limits. */
  checkPromptLimits(msisdn: string, reference: string): Promise<void>;
  /** How long a prompt to this number can be approved, when the network's prompt lifetime is known. */
  promptLifetimeMs(msisdn: string): Promise<number | null>;
  /** Tells the reconciler to read the order now (in this process). */
  readSoon(ref: string): void;
}

/** The error of a refusal reply. */
export function refusal(reply: Extract<Reply, { kind: 'refuse' }>): ProxyError {
  return new ProxyError(reply.code, reply.message, reply.details);
}

export function unavailable(): ProxyError {
  return new ProxyError('UPSTREAM_UNAVAILABLE', 'The service is unavailable. Try again in a moment.', { retryable: true });
}

/** How long a waiting request sleeps between two reads of the order. */
export const WAIT_STEP_MS = 25;
