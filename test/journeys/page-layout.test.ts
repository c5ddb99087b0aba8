import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { journeyShop } from './journey-shop.js';
import {
  JOURNEY_TIMEOUT_MS,
  SCREENS,
  addToCart,
  answerOnPhone,
  payByMobile,
  payWith,
  placeOrder,
  reachesState,
  verifyByOtp,
} from './shop-browser.js';

/** The box of an element's part (in its shadow root). */
const box = (element: Locator, part: string) =>
  element.evaluate((el, part) => el.shadowRoot!.querySelector(`[part~="${part}"]`)!.getBoundingClientRect().toJSON() as DOMRect, part);

/** The background colour of a control. */
const background = (locator: Locator) => locator.evaluate((el) => getComputedStyle(el).backgroundColor);

/** The ways on sit after the sentence that says why, with room, and the sentence right under the amount. */
async function waysAfterWhy(element: Locator, why: 'status' | 'error-message') {
  const [amount, sentence, retry] = await Promise.all([box(element, 'amount'), box(element, why), box(element, 'retry-button')]);
  expect(sentence.height, 'the sentence is shown').toBeGreaterThan(0);
  expect(sentence.top, 'the sentence under the amount').toBeGreaterThanOrEqual(amount.bottom);
  expect(retry.top - sentence.bottom, 'the buttons below the sentence, not tight under it').toBeGreaterThanOrEqual(12);
}

/** The tops of the main navigation's links: one value when they keep to one line. */
const navLines = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).evaluate((nav) => new Set([...nav.querySelectorAll('a')].filter((a) => a.offsetParent).map((a) => Math.round(a.getBoundingClientRect().top))).size);

// What looked wrong at a glance (issue 20, item 8), at both sizes.
describe('journey: the pages laid out as a customer reads them', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  const shop = journeyShop();

  for (const screen of SCREENS) {
    it(`puts the buttons of a failed and a declined payment after the sentence that says why (${screen.name})`, async () => {
      const visit = await shop.visit({ timeScale: 0.1, screen });
      const { page, context } = visit;
      await addToCart(page, 'Gari, 1 kg');
      await placeOrder(page, 'mobile money');
      const element = payByMobile(page);
      await payWith(page, '024 000 0002');
      await reachesState(element, 'failed');
      await waysAfterWhy(element, 'error-message');

      await element.getByRole('button', { name: 'Use another number' }).click();
      await payWith(page, '026 000 0004');
      await reachesState(element, 'pending');
      await answerOnPhone(context, '233260000004', 'Decline');
      await reachesState(element, 'cancelled');
      await waysAfterWhy(element, 'status');
      expect(visit.errors).toEqual([]);
    });

    it(`keeps Sign in quiet until the number is verified, and the signed-in nav on one line (${screen.name})`, async () => {
      const visit = await shop.visit({ timeScale: 0.1, screen });
      const { page, demo } = visit;
      await page.goto('/sign-in');
      const otp = page.getByTestId('otp-verify');
      const signIn = page.getByRole('button', { name: 'Sign in', exact: true });
      const sendCode = otp.getByRole('button', { name: 'Send code' });
      const card = page.getByTestId('sign-in-form');
      // Before any code: not a second "Send code", and not across the whole card.
      expect(await background(signIn)).not.toBe(await background(sendCode));
      expect((await signIn.boundingBox())!.width).toBeLessThan((await card.boundingBox())!.width * 0.6);
      await verifyByOtp(otp, demo, '024 000 0001', '233240000001');
      await reachesState(otp, 'verified');
      // Verified: the one button to press, in the shop's colour.
      await expect.poll(() => background(signIn)).toBe('rgb(11, 110, 79)');
      await signIn.click();
      await page.waitForURL('**/account');
      expect(await navLines(page), 'one line of links').toBe(1);
      expect(visit.errors).toEqual([]);
    });

    it(`shows the checkout's "popup" choice at its full size (${screen.name})`, async () => {
      const visit = await shop.visit({ timeScale: 0.1, screen });
      const { page } = visit;
      await addToCart(page, 'Gari, 1 kg');
      await placeOrder(page, 'the checkout page');
      for (const name of [/in this tab/, /in a popup/]) {
        const radio = (await page.getByLabel(name).boundingBox())!;
        expect(Math.round(radio.width), String(name)).toBeGreaterThanOrEqual(18);
        expect(Math.round(radio.height), String(name)).toBeGreaterThanOrEqual(18);
      }
      expect(visit.errors).toEqual([]);
    });
  }
});
