import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningDemo } from '../../demo/server/index.js';
import { SilentLink } from '../support/silent-link.js';
import { journeyShop } from './journey-shop.js';
import {
  JOURNEY_TIMEOUT_MS,
  STEP_TIMEOUT_MS,
  addToCart,
  newCustomer,
  orderShows,
  payByMobile,
  payWith,
  placeOrder,
  reachesState,
  sandboxPayments,
} from './shop-browser.js';

// A customer on a phone network (a mid-range Android's screen) whose connection dies in the middle of paying:
// silently (bytes stop, nothing is closed: the element learns only from its own deadlines) or plainly
// offline. The goals of issue 36: the outcome within 15 s of the network returning after a Pay whose answer
// was lost, with one payment at the provider; within 10 s after a status stream silenced for 10 s; and while
// offline, the element says so.
const PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2 };

/** Approves, as the customer's phone would, the payment waiting on `msisdn` (the sandbox's own API, not the page's network). */
async function approveOnPhone(demo: RunningDemo, msisdn: string): Promise<void> {
  const { payments } = (await (await fetch(`${demo.urls.sandbox}/__sandbox/payments`)).json()) as { payments: { msisdn: string; status: string; referenceId: string }[] };
  const pending = payments.find((p) => p.msisdn === msisdn && p.status === 'PENDING');
  if (!pending) throw new Error(`no payment waiting on ${msisdn}: ${JSON.stringify(payments)}`);
  const answer = await fetch(`${demo.urls.sandbox}/__sandbox/phone/payments/${pending.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
  expect(answer.status).toBeLessThan(400);
}

/** Waits (generously: the machine is shared) until the page shows the paid order; resolves the seconds it took from `since`. */
async function paidAfter(page: Page, reference: string, since: number): Promise<number> {
  try {
    await page.waitForURL(`**/orders/${reference}`, { timeout: 4 * STEP_TIMEOUT_MS });
  } catch (err) {
    // Where it stands instead: reachesState says.
    await reachesState(payByMobile(page), 'completed', 1_000);
    throw err;
  }
  const seconds = (Date.now() - since) / 1e3;
  await orderShows(page, 'paid');
  return seconds;
}

describe('journey: the connection dies while paying on a phone', { timeout: JOURNEY_TIMEOUT_MS * 2 }, () => {
  const shop = journeyShop();
  let link: SilentLink | undefined;
  afterEach(async () => {
    await link?.close();
    link = undefined;
  });

  /** A customer whose every request to the shop goes through a link that can go silent. */
  async function customerOnLink() {
    const visit = await shop.visit({ timeScale: 0.1 });
    link = await SilentLink.start(visit.demo.url);
    const customer = await newCustomer(shop.browser, { ...visit.demo, url: link.url }, PHONE);
    return { ...customer, demo: visit.demo };
  }

  it('shows the payment paid within 15 s of the network returning when the answer to Pay was lost, with one payment', async () => {
    const { page, demo, errors } = await customerOnLink();
    await addToCart(page, 'Gari, 1 kg');
    const reference = await placeOrder(page, 'mobile money');
    // The request to pay reaches the shop; its answer, and everything after it, is lost for 5 s.
    link!.silenceAfter(/^POST \/merchant-elements\/payments /);
    await payWith(page, '024 000 0001');
    await reachesState(payByMobile(page), 'paying');
    await new Promise((r) => setTimeout(r, 5_000));
    // Meanwhile the provider took the payment (024 000 0001 approves by itself).
    expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233240000001 COMPLETED']);
    link!.restore();
    const seconds = await paidAfter(page, reference, Date.now());
    expect(seconds, 'seconds from the network returning to the outcome').toBeLessThanOrEqual(15);
    expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233240000001 COMPLETED']);
    expect(errors).toEqual([]);
  });

  it('shows the outcome within 10 s of the network returning after the status stream was silent for 10 s', async () => {
    const { page, demo, errors } = await customerOnLink();
    await addToCart(page, 'Gari, 1 kg');
    const reference = await placeOrder(page, 'mobile money');
    // 026 000 0004 never answers by itself: the payment waits on the phone, watched over the stream.
    await payWith(page, '026 000 0004');
    const element = payByMobile(page);
    await reachesState(element, 'pending');
    await element.getByText(/^Approve .* on 026\s\*\*\*\s\*\*04\.$/).waitFor();
    link!.silence();
    await approveOnPhone(demo, '233260000004');
    await new Promise((r) => setTimeout(r, 10_000));
    link!.restore();
    const seconds = await paidAfter(page, reference, Date.now());
    expect(seconds, 'seconds from the network returning to the outcome').toBeLessThanOrEqual(10);
    expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233260000004 COMPLETED']);
    expect(errors).toEqual([]);
  });

  it('says while offline that it will update when the connection returns, keeping what to do, then shows the outcome', async () => {
    const { page, context, demo, errors } = await customerOnLink();
    await addToCart(page, 'Gari, 1 kg');
    const reference = await placeOrder(page, 'mobile money');
    await payWith(page, '026 000 0004');
    const element = payByMobile(page);
    await reachesState(element, 'pending');
    const status = element.locator('[part=status]');
    await status.getByText(/^Approve .* on 026\s\*\*\*\s\*\*04\.$/).waitFor();
    await context.setOffline(true);
    // Said, while offline, after the prompt's instructions, which stay.
    await status.getByText(/^Approve .* on 026\s\*\*\*\s\*\*04\. Connection lost\. This will update when it returns\.$/).waitFor({ timeout: 2 * STEP_TIMEOUT_MS });
    await approveOnPhone(demo, '233260000004');
    await context.setOffline(false);
    await paidAfter(page, reference, Date.now());
    expect(errors).toEqual([]);
  });
});
