import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../../demo/server/index.js';
import {
  JOURNEY_TIMEOUT_MS,
  type Customer,
  launchChromium,
  newCustomer,
  orderShows,
  payByMobile,
  payOnHostedPage,
  payWith,
  sandboxCheckouts,
  sandboxPayments,
  verifyByOtp,
} from './shop-browser.js';

// One shop for the three pages: each page load makes its own demo orders, and each journey a new customer.
describe('journey: a customer uses the elements embedded in React, Vue and plain HTML', { timeout: JOURNEY_TIMEOUT_MS }, () => {
  let browser: Browser;
  let demo: RunningDemo;
  let customer: Customer | undefined;
  beforeAll(async () => {
    [browser, demo] = await Promise.all([launchChromium(), startDemo({ port: 0, timeScale: 0.1, logLevel: 'silent' })]);
  });
  afterEach(async () => {
    await customer?.context.close();
    customer = undefined;
  });
  afterAll(async () => {
    await demo?.close();
    await browser?.close();
  });

  /** A new customer on an embedding page, once its elements are there; resolves the page. */
  async function open(path: string, link: string) {
    customer = await newCustomer(browser, demo);
    const { page } = customer;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Embedding' }).click();
    await page.getByRole('link', { name: link }).click();
    await page.waitForURL(`**${path}`);
    await payByMobile(page).getByText('GHS').first().waitFor();
    return page;
  }

  /**
   * Pays a single-page app's mobile-money demo order with 024 000 0001 and lands on its order page, paid;
   * the sandbox received that order's payment once.
   */
  async function paysDemoOrder(page: Page) {
    const reference = await page.getByTestId('payment-order-reference').textContent();
    await payWith(page, '024 000 0001');
    await page.waitForURL(`**/orders/${reference}`);
    await orderShows(page, 'paid');
    expect((await sandboxPayments(demo)).filter((p) => p.referenceNo.startsWith(`${reference}-`)).map((p) => p.status)).toEqual(['COMPLETED']);
    expect(customer!.errors).toEqual([]);
  }

  it('React: pays the demo order with mobile money and lands on its order page, paid', async () => {
    const page = await open('/embed/react/', 'React');
    // onPaymentCompleted of the React wrapper sends the page to the order.
    await paysDemoOrder(page);
  });

  it('Vue: signs in by SMS code, then pays the demo order with mobile money, paid', async () => {
    const page = await open('/embed/vue/', 'Vue');
    // @otp-verified sends the proof to the shop's server, which verifies it and answers the masked number.
    await verifyByOtp(page.getByTestId('otp-verify'), demo, '024 000 0001', '233240000001');
    await expect(page.getByTestId('signed-in-number').textContent()).resolves.toMatch(/Signed in as \+233 24 \*\*\* \*\*01/);

    // @payment-completed sends the page to the order.
    await paysDemoOrder(page);
  });

  it('plain HTML (the CDN loader): pays on the hosted checkout page and comes back to the order, paid', async () => {
    const page = await open('/embed/cdn', 'Plain HTML and a <script> tag');
    const reference = await page.getByTestId('order-reference').textContent();
    await page.getByRole('button', { name: 'Pay on the checkout page' }).click();
    await payOnHostedPage(page, '233240000001', `/orders/${reference}`);
    await orderShows(page, 'paid');
    expect((await sandboxCheckouts(demo)).filter((c) => c.reference === reference).map((c) => c.status)).toEqual(['completed']);
    expect(customer!.errors).toEqual([]);
  });
});
