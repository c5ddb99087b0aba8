import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { gatewayErrorEnvelope, providerErrorBody } from '../../src/provider/schemas/index.js';
import { CANARY_FORMS } from './fuzz-canary.js';
import { allOf, errorsHaveShape, fuzz, jsonFits, noSecretEchoed, noServerError, watchProcess, type ProcessWatch } from './fuzz-checks.js';
import type { FuzzRequest, FuzzResponse } from './fuzz-http.js';
import { routeRequests } from './fuzz-requests.js';
import { sandboxRoutes } from './fuzz-sandbox-routes.js';
import { GOOD, prepareSandboxWorld, startFuzzSandbox } from './fuzz-sandbox-world.js';
import { useFuzzTarget } from './fuzz-target.js';

/**
 * Fuzzes the sandbox's 13 endpoints of the specification and its hosted checkout page with `perRoute`
 * generated requests each at least (8 in flight; `npm test` sends 200, `npm run proof:long` 2,000), varied
 * as the proxy fuzz varies them (fuzz-proxy-suite.ts), with the interfaces' own credentials: x-api-key/x-api-secret/x-api-version, gateway Basic, checkout Bearer.
 *
 * Per request: never a 5xx; every 4xx in the interface's documented error shape (messaging and checkout:
 * `providerErrorBody`; gateway: `gatewayErrorEnvelope`; the hosted page: an HTML page, or the JSON error
 * body when its JSON could not be read); no canary credential in any header or body. Per endpoint: a
 * quarter at least got past the shared gates (credentials, version, unreadable JSON) into its own work,
 * the sandbox still answers, no unhandled rejection or uncaught exception, no built-in prototype polluted.
 * Not sent: the sandbox's deliberate fault triggers (x-sandbox-fault, an email to fail.sandbox.invalid).
 */

const CONCURRENCY = 8;

/** The error shape of the interface a request went to (by its path, as the sandbox routes it). */
function sandboxErrorShape(req: FuzzRequest, res: FuzzResponse): string | null {
  if (req.path.startsWith('/gateway/')) {
    // The one gateway refusal in the specification's error body: insufficient funds on a payment request.
    if (req.method === 'POST' && res.status === 400 && jsonFits(res, providerErrorBody) === null) {
      return (JSON.parse(res.body.toString('utf8')) as { error: string }).error === 'INSUFFICIENT_FUNDS' ? null : 'a gateway error body other than INSUFFICIENT_FUNDS';
    }
    return jsonFits(res, gatewayErrorEnvelope);
  }
  const hostedPage = req.path.startsWith('/checkout/');
  if (hostedPage && String(res.headers['content-type'] ?? '').startsWith('text/html') && res.body.length > 0) return null;
  return jsonFits(res, providerErrorBody);
}

/** Refusals of the gates every endpoint shares (credentials, version, unreadable JSON, no such route). */
const GATE_CODES = new Set(['UNAUTHORIZED', 'MISSING_API_VERSION', 'INVALID_JSON']);

/** True when a request got past the shared gates into the endpoint's own work (success or its own refusal). */
function reachedEndpoint(req: FuzzRequest, res: FuzzResponse): boolean {
  if (res.status < 400) return true;
  if (String(res.headers['content-type'] ?? '').startsWith('text/html')) return true;
  let body: { error?: string; message?: string; statusMessage?: string } = {};
  try {
    body = JSON.parse(res.body.toString('utf8')) as typeof body;
  } catch {
    return false;
  }
  // The gateway names a refused field in x-sandbox-reason, and a missing record in its statusMessage.
  if (req.path.startsWith('/gateway/')) {
    return res.headers['x-sandbox-reason'] !== undefined || body.error === 'INSUFFICIENT_FUNDS' || /^(Transaction|Account holder) not found$/.test(body.statusMessage ?? '');
  }
  if (body.error === 'NOT_FOUND') return !body.message?.startsWith('No route');
  return body.error !== undefined && !GATE_CODES.has(body.error);
}

const check = allOf(noServerError, errorsHaveShape(sandboxErrorShape), noSecretEchoed(CANARY_FORMS));

/** Registers the suite (in a test file's collection), `perRoute` requests to each route. */
export function fuzzSandboxSuite(perRoute: number): void {
  const watch: ProcessWatch = watchProcess();
  afterAll(() => watch.stop());
  afterEach(() => {
    expect(watch.problems()).toEqual([]);
  });

  const t = useFuzzTarget({ start: startFuzzSandbox, url: (sandbox) => sandbox.url, prepare: prepareSandboxWorld });

  const NAMES = [
    'POST /v1/external/sms/quick',
    'POST /v1/external/sms/bulk',
    'POST /v1/external/sms/quick/:messageId/resend',
    'GET /v1/external/sms/logs/:sequenceNo',
    'POST /v1/external/generate/otp',
    'POST /v1/external/validate/otp',
    'POST /v1/external/email/send',
    'GET /v1/external/account/balance',
    'POST /gateway/v1/payment',
    'GET /gateway/v1/payment/:reference/status',
    'GET /gateway/v1/accountholders/:accountHolderId',
    'POST /v1/checkout/initialize',
    'GET /v1/checkout/:checkoutId/status',
    'GET /checkout/:checkoutId',
    'POST /checkout/:checkoutId/pay',
    'POST /checkout/:checkoutId/cancel',
  ];

  describe(`fuzzing the sandbox: every endpoint and the hosted checkout page, ${perRoute} requests each`, () => {
    it('covers the 13 endpoints of the specification and the three hosted page routes', () => {
      expect(sandboxRoutes(t.world).map((r) => r.name)).toEqual(NAMES);
    });

    for (const name of NAMES) {
      it(`${name}: no 5xx, errors in shape, no secret echoed, still alive`, async () => {
        const route = sandboxRoutes(t.world).find((r) => r.name === name)!;
        const { sent, reached } = await fuzz({
          requests: routeRequests(route, { own: t.url, allowed: 'https://shop.example' }),
          send: (req) => t.client.send(req),
          check,
          total: perRoute,
          concurrency: CONCURRENCY,
          reached: reachedEndpoint,
        });
        expect(sent).toBeGreaterThanOrEqual(perRoute);
        // Not only the shared gates were fuzzed: a good share got through to the endpoint's own work.
        expect(reached).toBeGreaterThan(sent / 4);
        const balance = await fetch(`${t.url}/v1/external/account/balance`, { headers: Object.fromEntries(GOOD.messaging) });
        expect(balance.status).toBe(200);
      }, 120_000);
    }
  });
}
