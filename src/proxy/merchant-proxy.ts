import type { Router } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CheckoutSnapshot, PaymentSnapshot } from '../protocol/index.js';
import type { ResolvedProxyConfig } from './config.js';
import type { ProxyMetrics } from './metrics.js';
import type { WebhookAdmin } from './notify/webhook-admin.js';
import type { CheckoutTokenInput, OtpTokenInput, PaymentTokenInput } from './tokens/claims.js';
import type { VerifiedOtpProof } from './tokens/service.js';

/** What `createMerchantProxy` returns: the router to mount, and the merchant's server-side calls. */
export interface MerchantProxy {
  /** Mount it on the merchant's app: `app.use('/merchant-elements', proxy.router)`. */
  router: Router;
  /**
   * The same router typed for Node's own request and response: for servers that hand middleware plain
   * Node objects (Fastify with `@fastify/middie`: `fastify.use('/merchant-elements', proxy.handler)`,
   * Connect, node:http). It runs in a small Express app of its own there (`trustProxy` applies).
   */
  handler: (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;
  /** Mint element tokens when rendering a page; each resolves to the token string. */
  tokens: {
    otp(input: OtpTokenInput): Promise<string>;
    payment(input: PaymentTokenInput): Promise<string>;
    checkout(input: CheckoutTokenInput): Promise<string>;
  };
  /**
   * Verifies the proof an `<otp-verify>` element got, for a purpose, once: resolves the verified
   * number, and throws a ProxyError TOKEN_INVALID when the proof is bad, of another purpose or replayed.
   */
  verifyOtpProof(proof: string, expected: { purpose: string }): Promise<VerifiedOtpProof>;
  /** Payments as the proxy knows them (never the browser's word). */
  payments: {
    /** The order's payment, by your order reference: its completed attempt if any, else its current one. */
    get(orderReference: string): Promise<PaymentSnapshot | null>;
    /** One attempt, by its attempt reference (`ORDER-123-1`, the `reference` of events and snapshots). */
    getAttempt(reference: string): Promise<PaymentSnapshot | null>;
  };
  /** Hosted checkouts as the proxy knows them. */
  checkouts: {
    /** The order's checkout, by your reference: its completed session if any, else its latest. */
    get(reference: string): Promise<CheckoutSnapshot | null>;
    /** One session, by checkoutId. */
    getSession(checkoutId: string): Promise<CheckoutSnapshot | null>;
  };
  /**
   * Signed webhooks (when `webhooks` is configured): list them by state and replay one with the same
   * `webhook-id` (the server API's `/server/webhooks` routes and `merchant-elements webhooks` use these).
   */
  webhooks: WebhookAdmin;
  /**
   * This proxy's metrics in the Prometheus format (DESIGN: metrics): `registry` (its own, never prom-client's
   * global one) and `handler`, which answers a scrape. Mount the handler where only your scraper reaches it
   * (an internal port, `app.get('/metrics', proxy.metrics.handler)` on an app that is not public): the proxy's
   * router never serves it. `merchant-elements serve` serves it at `/metrics` on the server API's own port.
   */
  metrics: Pick<ProxyMetrics, 'registry' | 'handler'>;
  /** The validated configuration (secrets included: keep it on the server). */
  config: ResolvedProxyConfig;
  /** The proxy's logger (redacting). */
  logger: Logger;
  /**
   * Resolves once the proxy can take work: the store answers a ping, its records are of a format this
   * version reads (rejects naming the format otherwise), the relay's first sweep is done, and the store's
   * checks are logged in one line (DESIGN: the store's checks). `merchant-elements serve` listens only after it.
   */
  ready(): Promise<void>;
  /**
   * Marks this instance as shutting down: `/ready` answers 503 from now on (every other route as before), so
   * a balancer probing readiness sends new requests elsewhere before the server stops (`serve` calls it on
   * SIGTERM, before its pre-stop window).
   */
  markDraining(): void;
  /** Stops the relay and closes the store (when the proxy opened it) and the provider client. */
  close(): Promise<void>;
}
