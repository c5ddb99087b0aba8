import type { Browser, Page } from 'playwright-core';
import { SHOP_NAME } from '../../demo/server/catalogue.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  JOURNEY_TIMEOUT_MS,
  type ShopVisit,
  addToCart,
  answerOnPhone,
  launchChromium,
  orderShows,
  payByMobile,
  payWith,
  placeOrder,
  reachesState,
  sandboxPayments,
  visitShop,
} from './shop-browser.js';

const SCREENS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
];

/** The prompt on the sandbox phone of `digits` (the page reads itself again; no reload is needed). */
async function phonePrompt(phone: Page, digits: string) {
  await phone.goto(`/sandbox/__sandbox/phone?number=${digits}`);
  const prompt = phone.getByRole('region', { name: /^Payment prompt/ });
  await prompt.waitFor();
  return prompt;
}

// A payment waits on the customer's phone (026 000 0004 never answers by itself): what the customer sees is
// what the phone asks, wherever they look from and whenever they come back.
describe('journey: a payment waiting on the phone', { timeout: JOURNEY_TIMEOUT_MS }, () => {
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

  for (const screen of SCREENS) {
    it(`shows before approval the total and charge the phone then asks, to the pesewa (${screen.name})`, async () => {
      visit = await visitShop(browser, { timeScale: 0.1, screen });
      const { page, context } = visit;
      await addToCart(page, 'Kente stole');
      await placeOrder(page, 'mobile money');
      const element = payByMobile(page);
      const amount = (await element.locator('[part="amount"]').textContent())!;
      // Before the request: the token's amount, in the question and on the button.
      await element.getByLabel('Mobile money number', { exact: true }).fill('026 000 0004');
      await element.getByLabel('Mobile money number', { exact: true }).press('Enter');
      await reachesState(element, 'confirm');
      await expect(element.locator('[part="account"]').textContent()).resolves.toBe(`Pay ${amount} from ESI O. on AirtelTigo?`);
      await element.getByRole('button', { name: `Pay ${amount}` }).click();
      await reachesState(element, 'pending');
      // The charge is known once the provider answered the request: the element shows it then.
      const status = element.locator('[part="status"]');
      await status.filter({ hasText: /charge\)/ }).waitFor();
      const [, total, base, charge] = /^Approve (GHS\s[\d.,]+) \((GHS\s[\d.,]+) \+ (GHS\s[\d.,]+) charge\) on your phone\.$/.exec(
        (await status.textContent())!.replace(/\u00a0/g, ' ').trim(),
      )!;
      expect(base).toBe(amount.replace(/\u00a0/g, ' '));

      const phone = await context.newPage();
      const prompt = await phonePrompt(phone, '233260000004');
      await expect(prompt.getByText(/^Pay GHS/).textContent()).resolves.toBe(`Pay ${total} to ${SHOP_NAME}?`);
      await expect(prompt.textContent()).resolves.toContain(`(amount ${base}, charge ${charge})`);
      await phone.close();
      expect(visit.errors).toEqual([]);
    });
  }

  it('shows a second tab of the order the number the prompt really went to, and both follow it to paid', async () => {
    visit = await visitShop(browser, { timeScale: 0.1 });
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

    // Tab B: the same order, another number typed. The proxy answers with the payment already waiting.
    const tabB = await context.newPage();
    await tabB.goto(`/orders/${reference}/pay-by-mobile`);
    const elementB = payByMobile(tabB);
    await payWith(tabB, '024 000 0001');
    await reachesState(elementB, 'pending');
    await elementB.getByText('A payment prompt was already sent to 026 *** **04: approve it there.').waitFor();

    await phone.getByRole('region', { name: /^Payment prompt/ }).getByRole('button', { name: 'Approve' }).click();
    for (const tab of [tabA, tabB]) {
      await tab.waitForURL(`**/orders/${reference}`);
      await orderShows(tab, 'paid');
    }
    // One prompt, to the number it went to; none to the number typed in tab B.
    expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233260000004 COMPLETED']);
    expect(visit.errors).toEqual([]);
  });

  for (const screen of SCREENS) {
    it(`leaves a waiting payment for the shop and comes back to it, waiting still, then paid (${screen.name})`, async () => {
      visit = await visitShop(browser, { timeScale: 0.1, screen });
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
      await page.getByTestId('order-waiting').getByText('Waiting for the customer to approve the payment on their phone.').waitFor();
      // Back to paying: the element picks the same payment up, no second request.
      await page.goto(`/orders/${reference}/pay-by-mobile`);
      await reachesState(element, 'pending');
      await element.getByText(/^Approve .*on your phone/).waitFor();

      await answerOnPhone(context, '233260000004', 'Approve');
      await page.waitForURL(`**/orders/${reference}`);
      await orderShows(page, 'paid');
      expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233260000004 COMPLETED']);
      expect(visit.errors).toEqual([]);
    });
  }
});
