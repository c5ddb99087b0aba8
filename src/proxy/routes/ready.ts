import type { Request, Response, Router } from 'express';
import { OPERATOR_PATHS } from '../../protocol/index.js';
import type { ReadinessResponse } from '../../protocol/index.js';
import {
  isProviderError,
  ProviderAuthenticationError,
  ProviderMalformedResponseError,
  ProviderUnavailableError,
} from '../../provider/errors.js';
import { PROVIDER_INTERFACES, type ProviderInterface } from '../../provider/types.js';
import type { ProxyContext } from '../context.js';
import type { StoreCheck } from '../store/store-checks.js';
import { answering } from '../errors.js';
import { sendJson } from '../respond.js';
import { circuitsOf } from './health.js';
import { HOST_RUNTIME } from '../runtime.js';

/**
 * How long one check of a provider interface stands, passed or failed: however often probes come (every
 * instance, every few seconds), each process calls each interface at most once per this interval.
 */
export const READINESS_CHECK_INTERVAL_MS = 10_000;
/**
 * Path of the readiness route under the mount (and at the root of `merchant-elements serve`). An operator's
 * route, not the browser protocol's, so not in `PROXY_PATHS`.
 */
export const READY_PATH = OPERATOR_PATHS.ready;

/** How long one check may wait for the provider: a probe's own timeout is usually a few seconds. */
export const READINESS_CHECK_TIMEOUT_MS = 3_000;

/** The id the checks read: nothing has it, so a reachable provider that accepts our credentials answers 404. */
const PROBE_ID = 'merchant-elements-readiness-probe';

/** What each interface is called in a reason, and the settings that hold its credentials. */
const LABELS: Record<ProviderInterface, { name: string; credentials: string }> = {
  messaging: { name: 'the messaging interface', credentials: 'MESSAGING_API_KEY and MESSAGING_API_SECRET (provider.messaging)' },
  payment: { name: 'the payment gateway', credentials: 'PAYMENT_USERNAME and PAYMENT_PASSWORD (provider.payment)' },
  checkout: { name: 'the checkout interface', credentials: 'CHECKOUT_API_KEY (provider.checkout)' },
};

/** One interface's last check. */
interface Check {
  ok: boolean;
  /** Why it failed, a sentence. */
  reason?: string;
  at: number;
}

/**
 * GET /ready, readiness: the store took a real write and read it back, and can keep money records in this
 * mode (DESIGN: the store's checks; `checks.store` says what it saw), and each provider interface answered a cheap
 * authenticated read (messaging: the balance; gateway and checkout: the status of an id nothing has, which
 * a provider that accepts our credentials answers 404) with the circuit of the calls someone waits on not
 * open (the reconciler's background circuit is not a reason: it refuses no customer). 200 when all hold, 503
 * otherwise, `reasons` saying what is wrong. Checks of the provider are shared and kept
 * {@link READINESS_CHECK_INTERVAL_MS}, so probes cannot flood it; the store and the circuits are read on
 * every request (they cost nothing upstream).
 */
export function readyRoutes(router: Router, ctx: ProxyContext, storeCheck: () => Promise<StoreCheck>): void {
  const check = providerChecks(ctx);
  router.get(READY_PATH, answering(async (_req: Request, res: Response) => {
    // The circuit of the calls someone waits on: an open background circuit (the reconciler's reads failing,
    // a backlog of status reads under a flash sale) refuses no customer here, and every instance shares it,
    // so taking this one out of the balancer would help nobody (/health reports the worse of the two).
    const circuits = circuitsOf(ctx, 'foreground');
    const [store, ...checks] = await Promise.all([
      storeCheck(),
      ...PROVIDER_INTERFACES.map((name) => (circuits[name] === 'open' ? Promise.resolve(undefined) : check(name))),
    ]);
    const { reasons: storeReasons, ...storeDetail } = store;
    const reasons: string[] = [];
    if (ctx.draining?.()) reasons.push('this instance is shutting down: send new requests to another');
    reasons.push(...storeReasons);
    const provider = Object.fromEntries(
      PROVIDER_INTERFACES.map((name, i) => {
        const last = checks[i];
        const open = circuits[name] === 'open';
        if (open) reasons.push(`${LABELS[name].name}: its circuit is open (calls to it kept failing; they are refused until a trial call succeeds)`);
        else if (last && !last.ok) reasons.push(`${LABELS[name].name}: ${last.reason}`);
        const entry = { ok: !open && last?.ok === true, circuit: circuits[name], checkedAt: last ? new Date(last.at).toISOString() : null };
        return [name, entry];
      }),
    ) as Pick<ReadinessResponse['checks'], ProviderInterface>;
    const answer: ReadinessResponse = {
      ready: reasons.length === 0,
      reasons,
      checks: { store: storeDetail, ...provider },
    };
    sendJson(res, answer.ready ? 200 : 503, answer);
  }));
}

/** Checks one interface, sharing a check in progress and reusing one younger than the interval. */
function providerChecks(ctx: ProxyContext): (name: ProviderInterface) => Promise<Check> {
  const last = new Map<ProviderInterface, Check>();
  const running = new Map<ProviderInterface, Promise<Check>>();
  const calls: Record<ProviderInterface, (signal: AbortSignal) => Promise<unknown>> = {
    // Once each, without the client's retries: a probe wants the first answer, within its own timeout.
    messaging: (signal) => ctx.client.account.balance({ signal, retry: false }),
    payment: (signal) => ctx.client.payments.status(PROBE_ID, { signal, retry: false }),
    checkout: (signal) => ctx.client.checkout.status(PROBE_ID, { signal, retry: false }),
  };

  async function run(name: ProviderInterface): Promise<Check> {
    const controller = new AbortController();
    const timer = HOST_RUNTIME.timeout(() => controller.abort(new Error('readiness check timed out')), READINESS_CHECK_TIMEOUT_MS);
    let check: Check;
    try {
      await calls[name](controller.signal);
      check = { ok: true, at: ctx.now() };
    } catch (err) {
      const reason = controller.signal.aborted ? `no answer within ${READINESS_CHECK_TIMEOUT_MS / 1000} s` : failure(name, err);
      check = reason === undefined ? { ok: true, at: ctx.now() } : { ok: false, reason, at: ctx.now() };
    } finally {
      clearTimeout(timer);
    }
    const before = last.get(name);
    if (!check.ok && before?.ok !== false) ctx.logger.warn({ upstream: name, reason: check.reason }, 'readiness: provider check failed');
    else if (check.ok && before?.ok === false) ctx.logger.info({ upstream: name }, 'readiness: provider check passes again');
    last.set(name, check);
    return check;
  }

  return (name) => {
    const known = last.get(name);
    if (known && ctx.now() - known.at < READINESS_CHECK_INTERVAL_MS) return Promise.resolve(known);
    let pending = running.get(name);
    if (!pending) {
      pending = run(name).finally(() => running.delete(name));
      running.set(name, pending);
    }
    return pending;
  };
}

/**
 * Why a check's error means the interface is not usable, or undefined when the provider answered in a way
 * that shows it reachable and our credentials accepted (404 for the id nothing has, a 400, a 429; a 403 on
 * the balance, which the specification gives for a key without that permission).
 */
function failure(name: ProviderInterface, err: unknown): string | undefined {
  if (!isProviderError(err)) return err instanceof Error ? err.message : String(err);
  if (err instanceof ProviderAuthenticationError) {
    if (name === 'messaging' && err.status === 403) return undefined;
    return `the provider refused our credentials (HTTP ${err.status}): check ${LABELS[name].credentials}`;
  }
  if (err instanceof ProviderMalformedResponseError) {
    return `its answer is not the provider's (HTTP ${err.status}, not the expected JSON): check its base URL`;
  }
  if (err instanceof ProviderUnavailableError) {
    if (err.reason === 'http') return `the provider answered HTTP ${err.status}`;
    if (err.reason === 'circuit-open') return 'its circuit is open';
    if (err.reason === 'timeout') return 'the provider did not answer in time';
    const code = errorCode(err.cause);
    return `the provider could not be reached${code ? ` (${code})` : ''}: check its base URL and the network`;
  }
  return undefined;
}

/** The first `code` along an error's cause chain (`ECONNREFUSED`, `ENOTFOUND`), if any. */
function errorCode(error: unknown): string | undefined {
  for (let depth = 0, current = error; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
