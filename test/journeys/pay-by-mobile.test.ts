import type { Browser } from 'playwright-core';
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

// Each journey on a fresh shop. Exactly once: the sandbox's own list of the payment requests it received
// (`/__sandbox/payments`) holds one request per attempt the customer made, never a second for a reload.
describe('journey: a customer pays an order with mobile money', { timeout: JOURNEY_TIMEOUT_MS }, () => {
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

  /** A fresh shop with a kente stole and a bag of gari ordered, on the order's mobile-money page. */
  async function orderToPay(timeScale: number) {
    visit = await visitShop(browser, { timeScale });
    await addToCart(visit.page, 'Kente stole', 'Gari, 1 kg');
    const reference = await placeOrder(visit.page, 'mobile money');
    await expect(payByMobile(visit.page).getByText('GHS 192.50').textContent()).resolves.toContain('192.50');
    return { ...visit, reference };
  }

  it('pays with 024 000 0001 and lands on the order page showing it paid, as the server knows it', async () => {
    const { page, demo, reference } = await orderToPay(0.1);
    await payWith(page, '024 000 0001');
    // The page goes to the order page on payment-completed; the order page asks the server.
    await page.waitForURL(`**/orders/${reference}`);
    await orderShows(page, 'paid');
    await expect(page.getByTestId('payment-status').textContent()).resolves.toMatch(/^COMPLETED: attempt 1 /);
    const paid = (await sandboxPayments(demo)).filter((p) => p.msisdn === '233240000001');
    expect(paid.map((p) => p.status)).toEqual(['COMPLETED']);
    expect(visit!.errors).toEqual([]);
  });

  it('is refused on 024 000 0002 for insufficient funds, in those words, then pays with 024 000 0001 on a second attempt', async () => {
    const { page, demo, reference } = await orderToPay(0.1);
    const element = payByMobile(page);
    await payWith(page, '024 000 0002');
    await reachesState(element, 'failed');
    // The gateway refuses it at once with INSUFFICIENT_FUNDS: the customer reads why.
    await element.getByText('Not enough money in the account.').waitFor();

    await element.getByRole('button', { name: 'Use another number' }).click();
    await reachesState(element, 'idle');
    await payWith(page, '024 000 0001');
    await page.waitForURL(`**/orders/${reference}`);
    await orderShows(page, 'paid');
    // The refused request left no payment upstream, so the second attempt used its reference again (…-1);
    // the shop still reads it as the second attempt.
    await expect(page.getByTestId('payment-status').textContent()).resolves.toMatch(new RegExp(`^COMPLETED: attempt 2 \\(${reference}-1\\)`));
    const statuses = (await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`);
    expect(statuses.sort()).toEqual(['233240000001 COMPLETED', '233240000002 FAILED']);
  });

  for (const screen of [
    { name: 'desktop', viewport: { width: 1280, height: 800 } },
    { name: 'phone', viewport: { width: 390, height: 844 } },
  ]) {
    it(`spends the order's three attempts on 024 000 0002, is told at once what is still possible, and keeps the cart for a new order (${screen.name})`, async () => {
      visit = await visitShop(browser, { timeScale: 0.1, screen });
      const { page, demo } = visit;
      await addToCart(page, 'Gari, 1 kg');
      const reference = await placeOrder(page, 'mobile money');
      const element = payByMobile(page);
      await payWith(page, '024 000 0002');
      for (let attempt = 1; attempt <= 3; attempt++) {
        // Each request is refused at once (insufficient funds): no prompt, no wait, and each counts.
        await expect.poll(async () => (await sandboxPayments(demo)).length).toBe(attempt);
        await reachesState(element, 'failed');
        if (attempt < 3) await element.getByRole('button', { name: 'Try again' }).click();
      }
      await element.getByText(/No attempts left for this order\. Start a new order or choose another way to pay\.$/).waitFor();
      // No 'Use another number' that would only be refused, no retry: the page offers what is still possible.
      await expect(element.getByRole('button').count()).resolves.toBe(0);
      const next = page.getByTestId('payment-blocked');
      await expect(next.getByRole('link', { name: 'Pay on the checkout page' }).getAttribute('href')).resolves.toBe(`/orders/${reference}/checkout`);
      await expect(next.getByRole('button', { name: 'Start a new order with these goods' }).isVisible()).resolves.toBe(true);
      expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(Array(3).fill('233240000002 FAILED'));

      // Back to paying by mobile money (a reload, a bookmark): the order page, which offers no mobile money now.
      await page.reload();
      await page.waitForURL(`**/orders/${reference}`);
      await page.getByTestId('order-spent').waitFor();
      expect(await page.getByTestId('pay-by-mobile-link').count()).toBe(0);
      await page.getByTestId('checkout-link').waitFor();
      // The shop's server knows why, from the proxy's snapshot.
      await expect(page.getByTestId('payment-status').textContent()).resolves.toMatch(/^FAILED \(insufficient funds\): attempt 3 \(\S+-1\)/);

      // A new order keeps the cart: the same goods, ready to pay another way or with another number.
      await page.getByRole('button', { name: 'Start a new order with these goods' }).click();
      await page.waitForURL('**/cart');
      await page.getByTestId('line-gari').waitFor();
      await placeOrder(page, 'mobile money');
      await reachesState(payByMobile(page), 'idle');
      expect(visit.errors).toEqual([]);
    });
  }

  it('is declined on the customer’s phone in a second tab: the element and the order page say so', async () => {
    // An ordinary number completes by itself after 5 simulated seconds: 20 real ones here, time to decline.
    const { page, context, demo, reference } = await orderToPay(4);
    const element = payByMobile(page);
    await payWith(page, '024 123 4567');
    await reachesState(element, 'pending');
    // What the phone asks: the total, charge included.
    // What the phone asks, and on which number (masked, as the proxy tells it; written the local way).
    await element.getByText(/^Approve GHS\s[\d.,]+ (\(GHS\s[\d.,]+ \+ GHS\s[\d.,]+ charge\) )?on 024\s\*\*\*\s\*\*67\.$/).waitFor();

    await answerOnPhone(context, '233241234567', 'Decline');
    await reachesState(element, 'cancelled');
    await element.getByText('Payment declined on the phone.').waitFor();

    await page.getByRole('link', { name: 'order page' }).click();
    await page.waitForURL(`**/orders/${reference}`);
    await orderShows(page, 'cancelled');
    await expect(page.getByTestId('payment-status').textContent()).resolves.toMatch(/^CANCELLED: attempt 1 /);
    expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233241234567 CANCELLED']);
  });

  // The element finds the payment again through the proxy's GET /order (the order work).
  it('reloads the page while the payment waits for approval, resumes it, and completes once approved', async () => {
    const { page, context, demo, reference } = await orderToPay(0.1);
    const element = payByMobile(page);
    // 026 000 0004 never answers by itself: the payment stays pending until the phone does.
    await payWith(page, '026 000 0004');
    await reachesState(element, 'pending');

    await page.reload();
    await reachesState(element, 'pending');
    await element.getByText(/^Approve .* on 0\d\d\s[\d*\s]+\.$/).waitFor();
    await expect(element.getByRole('progressbar').isVisible()).resolves.toBe(true);

    await answerOnPhone(context, '233260000004', 'Approve');
    await page.waitForURL(`**/orders/${reference}`);
    await orderShows(page, 'paid');
    // The reload asked for no second payment: one request, the one approved.
    expect((await sandboxPayments(demo)).map((p) => `${p.msisdn} ${p.status}`)).toEqual(['233260000004 COMPLETED']);
  });
});
