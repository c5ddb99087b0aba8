import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JOURNEY_TIMEOUT_MS,
  type ShopVisit,
  addToCart,
  answerOnPhone,
  launchChromium,
  newCustomer,
  orderShows,
  payByMobile,
  payWith,
  placeOrder,
  reachesState,
  visitShop,
} from './shop-browser.js';

/** WCAG contrast of an element's text on its background (both read from the computed style, in any sRGB form). */
function contrastOf(page: Page, selector: string): Promise<number> {
  return page.locator(selector).first().evaluate((el) => {
    const rgb = (c: string): number[] => {
      const n = c.match(/[\d.]+/g)!.map(Number);
      return c.startsWith('color(') ? n.slice(0, 3) : n.slice(0, 3).map((v) => v / 255);
    };
    const lum = (c: number[]) =>
      c.map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i]!, 0);
    const style = getComputedStyle(el);
    const [a, b] = [lum(rgb(style.color)), lum(rgb(style.backgroundColor))].sort((x, y) => y - x);
    return (a! + 0.05) / (b! + 0.05);
  });
}

describe('journey: the order page follows a payment, readable in dark mode', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  let browser: Browser;
  let visit: ShopVisit | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await visit?.close();
    await browser?.close();
  });

  it('shows the payment approved on the phone without reloading the order page, and its Paid badge at 4.5:1 in the dark', async () => {
    visit = await visitShop(browser, { timeScale: 0.1 });
    const { page, demo, context } = visit;
    await addToCart(page, 'Cocoa nibs, 200 g');
    const reference = await placeOrder(page, 'mobile money');
    // 026 000 0004 waits for an answer on its phone.
    await payWith(page, '026 000 0004');
    await reachesState(payByMobile(page), 'pending');

    await page.goto(`/orders/${reference}`);
    await orderShows(page, 'pending');
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await answerOnPhone(context, '233260000004', 'Approve');
    await orderShows(page, 'paid');
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), 'the page was not reloaded').toBe(true);
    await expect(page.getByTestId('payment-status').textContent()).resolves.toMatch(/^COMPLETED/);

    const dark = await newCustomer(browser, demo);
    try {
      await dark.page.emulateMedia({ colorScheme: 'dark' });
      await dark.page.goto(`/orders/${reference}`);
      await orderShows(dark.page, 'paid');
      expect(await contrastOf(dark.page, '.status-paid')).toBeGreaterThanOrEqual(4.5);
      await dark.page.emulateMedia({ colorScheme: 'light' });
      expect(await contrastOf(dark.page, '.status-paid')).toBeGreaterThanOrEqual(4.5);

      // The sandbox's green buttons (the hosted checkout's Pay, the phone's Approve) with their own styles.
      for (const scheme of ['dark', 'light'] as const) {
        await dark.page.emulateMedia({ colorScheme: scheme });
        await dark.page.goto('/sandbox/__sandbox/phone?number=233240000001');
        await dark.page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<button class="primary">Pay</button>'));
        expect(await contrastOf(dark.page, 'button.primary'), scheme).toBeGreaterThanOrEqual(4.5);
      }
    } finally {
      await dark.context.close();
    }
    expect(visit.errors).toEqual([]);
  });
});
