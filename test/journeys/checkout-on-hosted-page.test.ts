import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOURNEY_TIMEOUT_MS, type ShopVisit, addToCart, launchChromium, orderShows, payOnHostedPage, placeOrder, sandboxCheckouts, visitShop } from './shop-browser.js';

describe('journey: a customer pays on the provider’s hosted checkout page', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  let browser: Browser;
  let visit: ShopVisit | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await visit?.close();
    await browser?.close();
  });

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
});
