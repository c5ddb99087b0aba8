import type { Logger } from 'pino';
import type { CheckoutViewStatus } from '../../protocol/index.js';
import { isProviderError, ProviderNotFoundError, ProviderUnavailableError, ProviderValidationError } from '../../provider/errors.js';
import type { CheckoutInitializeRequest, CheckoutStatusResult } from '../../provider/schemas/index.js';
import type { ProviderClient } from '../../provider/types.js';
import type { CreateResult, UpstreamSession } from '../order/events.js';
import { BACKGROUND, readFailed, summary } from './payment-upstream.js';

/** What one read of a session (or a listing) found. */
export type SessionReadResult = { kind: 'found'; session: UpstreamSession } | { kind: 'not-found' } | { kind: 'error'; err: unknown };
export type SessionListResult = { kind: 'listed'; sessions: UpstreamSession[] } | { kind: 'error'; err: unknown };

/** Decides whether a `checkoutUrl` may be given to a customer (scheme and host). */
export type UrlCheck = (checkoutUrl: string) => boolean;

/**
 * The checkout interface as the order sees it: one creation per session, classified by what it means
 * (created, refused, unknown, not sent), status reads by id, and, where the provider lists sessions by
 * reference (`provider.checkoutListing`), the listing that finds a session whose creation's answer was lost.
 */
export class CheckoutUpstream {
  constructor(
    private readonly client: ProviderClient,
    private readonly logger: Logger,
    /** Whether the provider lists sessions by reference (the sandbox does; the specification shows no such call). */
    readonly lists: boolean,
    private readonly urlAllowed: UrlCheck,
  ) {}

  /** Creates one session and says what came of it (with the error, when it failed). */
  async create(request: CheckoutInitializeRequest): Promise<{ result: CreateResult; err?: unknown }> {
    try {
      return { result: await this.initialize(request) };
    } catch (err) {
      this.logger.warn({ reference: request.reference, err: summary(err) }, 'checkout creation did not succeed');
      return { result: classifyCreation(err), err };
    }
  }

  private async initialize(request: CheckoutInitializeRequest): Promise<CreateResult> {
    const session = await this.client.checkout.initialize(request);
    if (!this.urlAllowed(session.checkoutUrl)) return { kind: 'unusable', checkoutId: session.checkoutId };
    return {
      kind: 'created',
      session: {
        checkoutId: session.checkoutId,
        // The initialise answer says `active`; the status read says `pending` for the same thing.
        status: session.status === 'active' ? 'pending' : session.status,
        amount: session.amount,
        currency: 'GHS',
        expiresAt: iso(session.expiresAt),
        completedAt: null,
        checkoutUrl: session.checkoutUrl,
      },
    };
  }

  /** Reads a session by id; `background`: the reconciler's poll, under the background circuit. */
  async read(checkoutId: string, background = false): Promise<SessionReadResult> {
    try {
      return { kind: 'found', session: sessionOf(await this.client.checkout.status(checkoutId, background ? BACKGROUND : undefined)) };
    } catch (err) {
      if (err instanceof ProviderNotFoundError) return { kind: 'not-found' };
      readFailed(this.logger, err, { checkoutId }, 'checkout status read failed; reading on');
      return { kind: 'error', err };
    }
  }

  /** Lists the sessions under a reference; `background`: the reconciler's, under the background circuit. */
  async list(reference: string, background = false): Promise<SessionListResult> {
    try {
      const { sessions } = await this.client.checkout.sessions(reference, background ? BACKGROUND : undefined);
      // A listed URL is checked as a created one is: one the customer must not be sent to is not kept.
      const url = (u: string | null | undefined) => (u && this.urlAllowed(u) ? u : null);
      return { kind: 'listed', sessions: sessions.filter((s) => s.reference === reference).map((s) => ({ ...sessionOf(s), checkoutUrl: url(s.checkoutUrl) })) };
    } catch (err) {
      readFailed(this.logger, err, { reference }, 'checkout sessions could not be listed; reading on');
      return { kind: 'error', err };
    }
  }
}

/** What a failed creation means: refused in words, may exist (timeout, 5xx, unreadable), or never processed. */
function classifyCreation(err: unknown): CreateResult {
  if (err instanceof ProviderValidationError) return err.sent ? { kind: 'refused' } : { kind: 'not-sent' };
  if (!isProviderError(err)) return { kind: 'unknown' };
  if (err instanceof ProviderUnavailableError) return err.outcomeUnknown || err.reason === 'http' ? { kind: 'unknown' } : { kind: 'not-sent' };
  return err.status === 0 || err.status >= 500 ? { kind: 'unknown' } : { kind: 'not-sent' };
}

function sessionOf(result: CheckoutStatusResult): UpstreamSession {
  return {
    checkoutId: result.checkoutId,
    status: result.status as CheckoutViewStatus,
    amount: result.amount,
    currency: result.currency,
    expiresAt: iso(result.expiresAt),
    completedAt: result.completedAt ? iso(result.completedAt) : null,
  };
}

function iso(value: string): string | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
