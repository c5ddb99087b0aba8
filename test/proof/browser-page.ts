/**
 * What the browser-security tests do in a page and read back: `fetch` as a page's script would, the
 * proxy's record of what it answered, the shop page's elements driven through their flows, and the
 * sandbox's word on what was sent and paid.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { OutboxSms } from '../../src/sandbox/state.js';
import { strictCsp, type CspOptions } from './browser-shop.js';
import { newWatchedPage, type BrowserWorld, type SeenRequest, type Site } from './browser-world.js';
import { orderOf, upstreamPayments, type UpstreamPayment } from './sandbox-truth.js';

// ---- The sandbox's word -------------------------------------------------------------------------------

/** Reads of the sandbox's own state (in process): counts per route, the SMS outbox, payments received. */
export function sandboxView(world: BrowserWorld) {
  const state = () => world.sandbox.app.sandbox;
  const smsTo = (msisdn: string) => state().outbox.filter((e): e is OutboxSms => e.kind == 'sms' && e.to == msisdn);
  return {
    /** Requests the sandbox answered on one route (`otp.generate`, `payment.initiate`…). */
    count: (route: string) => state().requestCounts.get(route) ?? 0,
    smsTo,
    paymentsFrom: (msisdn: string) => [...state().payments.values()].filter((p) => p.msisdn == msisdn),
    /** The code of the last SMS to a number, once there is one. */
    async codeSentTo(msisdn: string): Promise<string> {
      await expect.poll(() => smsTo(msisdn).length).toBeGreaterThan(0);
      return /\b(\d{4,10})\b/.exec(smsTo(msisdn).at(-1)!.message)![1]!;
    },
    /** The payments the sandbox received for the order of an attempt reference (`ORDER-1` → `ORDER`). */
    async upstreamOfOrder(reference: string): Promise<UpstreamPayment[]> {
      return (await upstreamPayments(world.sandbox.url)).filter((p) => orderOf(p.referenceNo) == orderOf(reference));
    },
  };
}

// ---- Calls from a page --------------------------------------------------------------------------------

/** What a page's `fetch` got: the error it threw, or the response (the first chunk of its body). */
export interface Outcome {
  threw?: string;
  type?: string;
  status?: number;
  body?: string;
  date?: string | null;
  retryAfter?: string | null;
}

/** What Chromium's `fetch` throws when CORS (or CSP) stops a call. */
export const BLOCKED: Outcome = { threw: 'TypeError: Failed to fetch' };

/** Calls `fetch(url, init)` inside the page, as the page's own script would. */
export function call(page: Page, url: string, init: { method?: string; mode?: RequestMode; headers?: Record<string, string>; body?: string } = {}) {
  return page.evaluate(
    async ({ url, init }): Promise<Outcome> => {
      try {
        const res = await fetch(url, init);
        // One chunk: a stream that was (wrongly) allowed must not hold the test.
        const reader = res.body?.getReader();
        const chunk = reader && (await reader.read()).value;
        await reader?.cancel();
        const body = chunk ? new TextDecoder().decode(chunk) : '';
        return { type: res.type, status: res.status, body, date: res.headers.get('date'), retryAfter: res.headers.get('retry-after') };
      } catch (e) {
        return { threw: String(e) };
      }
    },
    { url, init },
  );
}

/** JSON headers with the element token, as the elements send them. */
export const jsonWith = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });

/** Requests from `origin` the proxy of `site` answered on `path` (of one method), once there are `atLeast`. */
export async function seenBy(site: Site, path: string, origin: string | undefined, atLeast = 1, method?: string): Promise<SeenRequest[]> {
  const mine = () => site.requests.filter((r) => r.path == path && r.origin == origin && (!method || r.method == method));
  await expect.poll(() => mine().length).toBeGreaterThanOrEqual(atLeast);
  return mine();
}

// ---- The shop page ------------------------------------------------------------------------------------

interface Seen {
  type: string;
  detail: Record<string, unknown>;
}

/** The detail of the first event of `type` an element of the page dispatched. */
export const eventOf = async (page: Page, type: string) =>
  (await page.evaluate(() => (window as unknown as { seen: Seen[] }).seen)).find((e) => e.type == type)?.detail;

/**
 * Opens a shop page, checks the policy it came with (`csp`: how `url`'s query widened it), and waits for
 * its tokens. Resolves the page and its console errors.
 */
export async function openShop(world: BrowserWorld, url: string, csp: CspOptions) {
  const watched = await newWatchedPage(world.browser);
  const res = await watched.page.goto(url);
  expect(res?.headers()['content-security-policy']).toBe(strictCsp(csp));
  await watched.page.locator('body[data-ready=yes]').waitFor();
  return watched;
}

/** Waits until the element `#id` is in `state`. */
export async function reach(page: Page, id: string, state: string) {
  const stateOf = () => page.evaluate((id) => (document.getElementById(id) as HTMLElement & { state: string }).state, id);
  await expect.poll(stateOf, { timeout: 15_000 }).toBe(state);
}

/**
 * Asserts that the page logged no error (on `origin`) and met no CSP violation. The watch script reports
 * asynchronously, so an image of another origin is loaded on purpose last (img-src refuses it) and its
 * report awaited before the others are read.
 */
export async function expectClean(world: BrowserWorld, page: Page, errors: string[], origin: string) {
  const logged = errors.filter((e) => e.startsWith(origin));
  await page.evaluate(() => void (new Image().src = 'http://127.0.0.1:9/flush.png'));
  await expect.poll(() => world.violations.filter((v) => v.directive == 'img-src').length).toBe(1);
  expect({ logged, violations: world.violations.filter((v) => v.directive != 'img-src') }).toEqual({ logged: [], violations: [] });
}

/** Verifies a number with `<otp-verify>`, typing the code the sandbox sent; resolves the proof. */
export async function verifyPhone(world: BrowserWorld, page: Page, msisdn: string): Promise<string> {
  await page.locator('#otp [part~=phone-input]').fill(msisdn);
  await page.locator('#otp [part~=send-button]').click();
  await page.locator('#otp [part~=code-input]').fill(await sandboxView(world).codeSentTo(msisdn));
  await reach(page, 'otp', 'verified');
  return String((await eventOf(page, 'otp-verified'))?.['proof']);
}

/** Pays with `<pay-by-mobile>` until COMPLETED; resolves the attempt's reference. */
export async function payByMobile(page: Page, msisdn: string): Promise<string> {
  await page.locator('#payment [part~=phone-input]').fill(msisdn);
  await page.locator('#payment [part~=continue-button]').click();
  await page.locator('#payment [part~=confirm-button]').click();
  await reach(page, 'payment', 'completed');
  return String((await eventOf(page, 'payment-completed'))?.['reference']);
}

/** Pays on the sandbox's hosted checkout page open in `page` (the number it suggests completes). */
export async function payOnHostedPage(page: Page) {
  await page.getByRole('button', { name: /^Pay / }).click();
}
