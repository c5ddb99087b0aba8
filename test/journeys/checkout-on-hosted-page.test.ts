import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JOURNEY_TIMEOUT_MS, SCREENS, type ShopVisit, addToCart, launchChromium, orderShows, payOnHostedPage, placeOrder, reachesState, sandboxCheckouts, visitShop } from './shop-browser.js';

describe('journey: a customer pays on the provider’s hosted checkout page', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  let browser: Browser;
  let visit: ShopVisit | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await visit?.close();
    visit = undefined;
  });
  afterAll(() => browser?.close());

  it('presses the checkout button, pays there with 024 000 0001 and comes back to the order page, paid', async () => {
    visit = await visitShop(browser, { timeScale: 0.1 });
    const { page, demo } = visit;
    await addToCart(page, 'Adinkra tote bag', 'Cocoa nibs, 200 g');
    const reference = await placeOrder(page, 'the checkout page');

    // Redirect mode: this tab goes to the hosted page, and the provider sends it back to the order.
    await page.getByTestId('checkout-button').getByRole('button', { name: 'Pay GHS 102.00 securely' }).click();
    await payOnHostedPage(page, '233240000001', `/orders/${reference}`);
    await orderShows(page, 'paid');
    await expect(page.getByTestId('checkout-status').textContent()).resolves.toMatch(/^completed \(/);

    // Exactly once: the sandbox holds one checkout session for the order, completed with the number typed.
    const sessions = (await sandboxCheckouts(demo)).filter((c) => c.reference === reference);
    expect(sessions.map((c) => [c.status, c.msisdn])).toEqual([['completed', '233240000001']]);
    expect(visit.errors).toEqual([]);
  });

  for (const screen of SCREENS) {
    it(`pays there with the number written as the elements take it, 024 000 0001 (${screen.name})`, async () => {
      visit = await visitShop(browser, { timeScale: 0.1, screen });
      const { page, demo } = visit;
      await addToCart(page, 'Gari, 1 kg');
      const reference = await placeOrder(page, 'the checkout page');
      await page.getByTestId('checkout-button').getByRole('button').click();
      await page.waitForURL(/\/sandbox\/checkout\//);
      const input = page.getByLabel('Mobile money number');
      // The page says which forms it takes, and takes them: no browser refusal, no "233 followed by 9 digits".
      await page.getByText('A Ghanaian mobile number, written as you like').waitFor();
      await payOnHostedPage(page, '024 000 0001', `/orders/${reference}`);
      await orderShows(page, 'paid');
      expect((await sandboxCheckouts(demo)).filter((c) => c.reference === reference).map((c) => c.msisdn)).toEqual(['233240000001']);
      expect(await input.count(), 'back on the shop').toBe(0);
      // (Every other form people write, +233… and 0240000001, is test/sandbox/checkout.test.ts's.)
      expect(visit.errors).toEqual([]);
    });

    it(`pays in a popup, which closes itself back at the shop, and the shop's tab shows the order paid (${screen.name})`, async () => {
      visit = await visitShop(browser, { timeScale: 0.1, screen });
      const { page, context } = visit;
      await addToCart(page, 'Adinkra tote bag');
      const reference = await placeOrder(page, 'the checkout page');
      await page.getByLabel(/in a popup/).check();
      const element = page.getByTestId('checkout-button');
      const [popup] = await Promise.all([context.waitForEvent('page'), element.getByRole('button').click()]);
      await reachesState(element, 'open');
      // The provider's page cannot reach the shop's tab: the element cut the popup's opener.
      await popup.waitForURL(/\/sandbox\/checkout\//);
      expect(await popup.evaluate(() => window.opener)).toBeNull();
      const closed = popup.waitForEvent('close');
      await payOnHostedPage(popup, '233240000001', `/orders/${reference}`).catch((e) => {
        // The popup may close before the wait for its URL sees the return page.
        if (!popup.isClosed()) throw e;
      });
      await closed;
      await page.waitForURL(`**/orders/${reference}`);
      await orderShows(page, 'paid');
      expect(context.pages()).toEqual([page]);
      expect(visit.errors).toEqual([]);
    });
  }
});
