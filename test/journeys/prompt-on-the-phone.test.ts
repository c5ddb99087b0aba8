import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { journeyShop } from './journey-shop.js';
import { PROMPT_LIFETIME_SECONDS } from '../../src/sandbox/test-numbers.js';
import {
  JOURNEY_TIMEOUT_MS,
  SCREENS,
  addToCart,
  orderShows,
  payByMobile,
  payWith,
  placeOrder,
  reachesState,
  sandboxPayments,
} from './shop-browser.js';

/** A twentieth of real time: MTN's prompt lifetime (120 s) is 6 s here. */
const TIME_SCALE = 0.05;
const MTN_PROMPT_MS = PROMPT_LIFETIME_SECONDS['MTN']! * 1000 * TIME_SCALE;

/** The prompt's age and time left as the element says them, in seconds (`Sent 0:04 ago. 0:08 left`). */
async function ageAndLeft(page: Page): Promise<{ age: number; left: number }> {
  const words = (await payByMobile(page).locator('.links').textContent({ timeout: 5_000 }))!.replace(/\s+/g, ' ');
  const m = /Sent (\d+):(\d\d) ago\. (\d+):(\d\d) left/.exec(words);
  if (!m) throw new Error(`no age and time left in "${words}"`);
  return { age: Number(m[1]) * 60 + Number(m[2]), left: Number(m[3]) * 60 + Number(m[4]) };
}

// A prompt nobody answers (issue 20, item 1): the customer is told the truth from every tab, and the order is
// blocked only while the prompt can still be approved. 024 000 0005 waits for its phone; MTN ends its prompt.
describe('journey: a payment prompt nobody answers', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  const shop = journeyShop();

  for (const screen of SCREENS) {
    it(`expires on the network's clock, and the order opens again: another try, or the checkout page (${screen.name})`, async () => {
      const visit = await shop.visit({ timeScale: TIME_SCALE, screen });
      const { page, demo } = visit;
      await addToCart(page, 'Gari, 1 kg');
      const reference = await placeOrder(page, 'mobile money');
      const element = payByMobile(page);
      await payWith(page, '024 000 0005');
      await reachesState(element, 'pending');
      // Money-wise the order is blocked while the prompt can be approved: the other way says so.
      const checkout = await visit.context.newPage();
      await checkout.goto(`/orders/${reference}/checkout`);
      await checkout.getByTestId('order-in-other-payment').waitFor();

      // Unanswered, MTN ends the prompt: the payment failed, nothing was charged, a new try is offered.
      await reachesState(element, 'failed', MTN_PROMPT_MS + 15_000);
      await element.getByText('The payment did not go through.').waitFor();
      await element.getByRole('button', { name: 'Try again' }).waitFor();
      const [payment] = (await (await fetch(`${demo.urls.sandbox}/__sandbox/payments`)).json()).payments as { status: string; failureCode: string }[];
      expect(payment).toMatchObject({ status: 'FAILED', failureCode: 'PROMPT_EXPIRED' });
      expect((await sandboxPayments(demo)).map((p) => p.msisdn)).toEqual(['233240000005']);

      // The order is open again, both ways.
      await checkout.reload();
      await checkout.getByTestId('checkout-button').getByRole('button').waitFor();
      expect(await checkout.getByTestId('order-in-other-payment').count()).toBe(0);
      await checkout.goto(`/orders/${reference}`);
      await orderShows(checkout, 'failed');
      await checkout.getByTestId('pay-by-mobile-link').waitFor();
      expect(visit.errors).toEqual([]);
    });

    // Needs the proxy to serve GET /order and the prompt's number, age and expiry (the order work).
    it(`says the prompt's number, its real age and the time left, the same after a reload and in a second tab (${screen.name})`, async () => {
      // A fifth of real time here: MTN's prompt stays open 24 s, longer than this journey looks at it.
      const visit = await shop.visit({ timeScale: 0.2, screen });
      const { page, context } = visit;
      await addToCart(page, 'Gari, 1 kg');
      const reference = await placeOrder(page, 'mobile money');
      const element = payByMobile(page);
      await payWith(page, '024 000 0005');
      await reachesState(element, 'pending');
      await element.getByText(/^Approve GHS\s[\d.,]+ .*on 024\s\*\*\*\s\*\*05\.$/).waitFor();
      const first = await ageAndLeft(page);
      expect(first.age + first.left, 'the prompt lifetime of MTN').toBeGreaterThanOrEqual(PROMPT_LIFETIME_SECONDS['MTN']! * 0.2 - 1);
      await page.waitForTimeout(2_000);

      // A reload: the same prompt, older, not a fresh countdown.
      await page.reload();
      await reachesState(element, 'pending');
      const reloaded = await ageAndLeft(page);
      expect(reloaded.age).toBeGreaterThanOrEqual(first.age + 2);
      expect(reloaded.left).toBeLessThanOrEqual(first.left - 1);

      // A second tab of the order: the live payment from its first paint, no number to type.
      const tabB = await context.newPage();
      await tabB.goto(`/orders/${reference}/pay-by-mobile`);
      await reachesState(payByMobile(tabB), 'pending');
      await payByMobile(tabB).getByText(/on 024\s\*\*\*\s\*\*05\.$/).waitFor();
      expect(await payByMobile(tabB).getByLabel('Mobile money number', { exact: true }).count()).toBe(0);
      const inB = await ageAndLeft(tabB);
      expect(Math.abs(inB.left - (await ageAndLeft(page)).left)).toBeLessThanOrEqual(1);
      expect(visit.errors).toEqual([]);
    });
  }
});
