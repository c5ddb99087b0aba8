import { describe, expect, it } from 'vitest';
import { journeyShop } from './journey-shop.js';
import {
  JOURNEY_TIMEOUT_MS,
  SCREENS,
  answerOnPhone,
  deepFocus,
  payByMobile,
  reachesState,
  sandboxPayments,
  tabTo,
} from './shop-browser.js';

// A customer who uses the keyboard alone (issue 20, item 6): when the phone declines, the focus goes to what
// comes next ("Try again"), not to the page's body, so Enter tries again. The phone is the customer's other
// device: it is answered in a tab of its own.
describe('journey: paying by keyboard alone, declined on the phone', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  const shop = journeyShop();

  for (const screen of SCREENS) {
    it(`orders, pays, is declined and tries again without a mouse (${screen.name})`, async () => {
      const visit = await shop.visit({ timeScale: 0.1, screen });
      const { page, context, demo } = visit;
      const keys = page.keyboard;

      // The shop, by keyboard: a bag of gari in the cart, then "Pay with mobile money".
      await tabTo(page, 'button');
      for (let i = 0; i < 40 && !/Gari/.test(await page.evaluate(() => document.activeElement?.textContent ?? '')); i++) await keys.press('Tab');
      await keys.press('Enter');
      await page.waitForURL('**/cart');
      for (let i = 0; i < 40 && (await page.evaluate(() => document.activeElement?.textContent?.trim())) != 'Pay with mobile money'; i++) await keys.press('Tab');
      await keys.press('Enter');
      await page.waitForURL(/\/pay-by-mobile$/);
      const element = payByMobile(page);
      await reachesState(element, 'idle');

      await tabTo(page, 'input[phone-input]');
      await keys.type('026 000 0004', { delay: 10 });
      await keys.press('Enter');
      await reachesState(element, 'confirm');
      expect(await deepFocus(page)).toMatch(/button\[confirm-button\]$/);
      await keys.press('Enter');
      await reachesState(element, 'pending');
      expect(await deepFocus(page)).toMatch(/button\[check-button\]$/);

      await answerOnPhone(context, '233260000004', 'Decline');
      await page.bringToFront();
      await reachesState(element, 'cancelled');
      await page.waitForFunction(() => {
        const el = document.querySelector('pay-by-mobile');
        return el?.shadowRoot?.activeElement?.getAttribute('part') == 'retry-button';
      });
      expect(await deepFocus(page), 'the focus on "Try again", not lost to the page').toMatch(/^pay-by-mobile > button\[retry-button\]$/);

      await keys.press('Enter');
      await reachesState(element, 'pending');
      await expect.poll(async () => (await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual([
        '233260000004 PENDING',
        '233260000004 CANCELLED',
      ]);
      expect(visit.errors).toEqual([]);
    });
  }
});
