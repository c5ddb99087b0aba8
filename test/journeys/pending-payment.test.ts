import { describe, expect, it } from 'vitest';
import { journeyShop } from './journey-shop.js';
import {
  JOURNEY_TIMEOUT_MS,
  SCREENS,
  addToCart,
  answerOnPhone,
  orderShows,
  payByMobile,
  payWith,
  placeOrder,
  reachesState,
  sandboxPayments,
} from './shop-browser.js';

// A payment waits on the customer's phone (026 000 0004 never answers by itself): what the customer sees is
// what the phone asks, wherever they look from and whenever they come back.
describe('journey: a payment waiting on the phone', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  const shop = journeyShop();

  // Needs the proxy's GET /order (the order work): tab B shows the live payment from its first paint.
  for (const screen of SCREENS) {
    it(`shows a second tab of the order the payment waiting on the phone from the start, and both follow it to paid (${screen.name})`, async () => {
      const visit = await shop.visit({ timeScale: 0.1, screen });
      const { page: tabA, context, demo } = visit;
      await addToCart(tabA, 'Gari, 1 kg');
      const reference = await placeOrder(tabA, 'mobile money');
      // The phone is open before the prompt: the prompt appears on it without a reload.
      const phone = await context.newPage();
      await phone.goto('/sandbox/__sandbox/phone?number=233260000004');
      await phone.getByText('No pending payment prompts.').waitFor();
      await phone.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

      await payWith(tabA, '026 000 0004');
      await reachesState(payByMobile(tabA), 'pending');
      await phone.getByRole('region', { name: /^Payment prompt/ }).waitFor();
      expect(await phone.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), 'the phone page was not reloaded').toBe(true);

      // Tab B: the same order. No number form to fill in: the payment already waiting, and where.
      const tabB = await context.newPage();
      await tabB.goto(`/orders/${reference}/pay-by-mobile`);
      const elementB = payByMobile(tabB);
      await reachesState(elementB, 'pending');
      expect(await elementB.getByLabel('Mobile money number', { exact: true }).count()).toBe(0);
      await elementB.getByText(/on 026\s\*\*\*\s\*\*04\.$/).waitFor();

      await phone.getByRole('region', { name: /^Payment prompt/ }).getByRole('button', { name: 'Approve' }).click();
      for (const tab of [tabA, tabB]) {
        await tab.waitForURL(`**/orders/${reference}`);
        await orderShows(tab, 'paid');
      }
      // One prompt, to the number it went to.
      expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233260000004 COMPLETED']);
      expect(visit.errors).toEqual([]);
    });
  }

  // Coming back to the pay page finds the payment through the proxy's GET /order (the order work).
  for (const screen of SCREENS) {
    it(`leaves a waiting payment for the shop and comes back to it, waiting still, then paid (${screen.name})`, async () => {
      const visit = await shop.visit({ timeScale: 0.1, screen });
      const { page, context, demo } = visit;
      await addToCart(page, 'Gari, 1 kg');
      const reference = await placeOrder(page, 'mobile money');
      const element = payByMobile(page);
      await payWith(page, '026 000 0004');
      await reachesState(element, 'pending');
      await element.getByText(/^Wrong number\? Decline on that phone/).waitFor();

      // Away to the shop's home page, then the order from the account-less way: its page says it waits.
      await page.goto('/');
      await page.goto(`/orders/${reference}`);
      await orderShows(page, 'pending');
      await page.getByTestId('order-waiting').getByText(/^Waiting for the customer to approve the payment on their phone on \+233 [\d* ]+, sent at \d\d:\d\d\./).waitFor();
      // Back to paying: the element picks the same payment up, no second request.
      await page.goto(`/orders/${reference}/pay-by-mobile`);
      await reachesState(element, 'pending');
      await element.getByText(/^Approve .* on 0\d\d\s[\d*\s]+\.$/).waitFor();

      await answerOnPhone(context, '233260000004', 'Approve');
      await page.waitForURL(`**/orders/${reference}`);
      await orderShows(page, 'paid');
      expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233260000004 COMPLETED']);
      expect(visit.errors).toEqual([]);
    });
  }
});
