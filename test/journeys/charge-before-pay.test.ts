import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { journeyShop } from './journey-shop.js';
import { SHOP_NAME } from '../../demo/server/catalogue.js';
import {
  JOURNEY_TIMEOUT_MS,
  SCREENS,
  addToCart,
  answerOnPhone,
  orderShows,
  payByMobile,
  placeOrder,
  reachesState,
} from './shop-browser.js';

/** Text with its no-break spaces made plain. */
const plain = async (locator: Locator) => (await locator.textContent())!.replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim();

// The customer knows what they will pay (issue 20, item 2): GHS 47.50 of goods, and the network's charge
// (the sandbox's 1 %: GHS 0.48), said before Pay, asked by the phone, and shown on the paid order.
describe('journey: what the customer will pay, before and after Pay', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  const shop = journeyShop();

  /** A shop with a tin of shea butter and a bag of gari ordered (GHS 47.50), the account of 026 000 0004 to confirm. */
  async function confirming(screen: (typeof SCREENS)[number]) {
    const visit = await shop.visit({ timeScale: 0.1, screen });
    await addToCart(visit.page, 'Shea butter, 250 g', 'Gari, 1 kg');
    const reference = await placeOrder(visit.page, 'mobile money');
    const element = payByMobile(visit.page);
    // The amount's digits come a frame after the form (the element's first render formats no number).
    await expect.poll(() => plain(element.locator('[part="amount"]'))).toBe('GHS 47.50');
    const input = element.getByLabel('Mobile money number', { exact: true });
    await input.fill('026 000 0004');
    await input.press('Enter');
    await reachesState(element, 'confirm');
    return { ...visit, reference, element };
  }

  for (const screen of SCREENS) {
    it(`shows what the phone asks once the request is sent, and the paid order shows the charge and the total paid (${screen.name})`, async () => {
      const { page, context, reference, element, errors } = await confirming(screen);
      await element.getByRole('button', { name: /^Pay / }).click();
      await reachesState(element, 'pending');
      // The big amount is what the customer approves now, the charge included, as the sentence says.
      await element.locator('[part="status"]').filter({ hasText: /charge\)/ }).waitFor();
      await expect(plain(element.locator('[part="amount"]'))).resolves.toBe('GHS 47.98');
      await expect(plain(element.locator('[part="status"]'))).resolves.toMatch(/^Approve GHS 47\.98 \(GHS 47\.50 \+ GHS 0\.48 charge\) on (your phone|026 \*\*\* \*\*04)\.$/);

      // The phone asks the same, and says its parts.
      const phone = await context.newPage();
      await phone.goto('/sandbox/__sandbox/phone?number=233260000004');
      const prompt = phone.getByRole('region', { name: /^Payment prompt/ });
      await expect(plain(prompt.getByText(/^Pay GHS/))).resolves.toBe(`Pay GHS 47.98 to ${SHOP_NAME}?`);
      await expect(plain(prompt)).resolves.toContain('(amount GHS 47.50, charge GHS 0.48)');
      await phone.close();
      await answerOnPhone(context, '233260000004', 'Approve');
      await page.waitForURL(`**/orders/${reference}`);
      await orderShows(page, 'paid');
      await expect(plain(page.getByTestId('order-total'))).resolves.toBe('GHS 47.50');
      await expect(plain(page.getByTestId('order-charge'))).resolves.toBe('GHS 0.48');
      await expect(plain(page.getByTestId('order-paid-total'))).resolves.toBe('GHS 47.98');
      await expect(page.getByRole('row', { name: /Total paid/ }).isVisible()).resolves.toBe(true);
      expect(errors).toEqual([]);
    });

    // Needs the proxy's charge estimate (GET /order, the account lookup) from the demo's configuration: the
    // sandbox's charge is known, so the shop can say it before Pay.
    it(`says before Pay about what the phone will ask, and the phone then asks it (${screen.name})`, async () => {
      const { context, element, errors } = await confirming(screen);
      await expect(plain(element.locator('[part="account"]'))).resolves.toBe(
        'Pay about GHS 47.98 (GHS 47.50 + about GHS 0.48 network charge) from ESI O. on AirtelTigo?',
      );
      await element.getByRole('button', { name: 'Pay about GHS 47.98' }).click();
      await reachesState(element, 'pending');
      const phone = await context.newPage();
      await phone.goto('/sandbox/__sandbox/phone?number=233260000004');
      const prompt = phone.getByRole('region', { name: /^Payment prompt/ });
      await expect(plain(prompt.getByText(/^Pay GHS/))).resolves.toBe(`Pay GHS 47.98 to ${SHOP_NAME}?`);
      expect(errors).toEqual([]);
    });
  }
});
