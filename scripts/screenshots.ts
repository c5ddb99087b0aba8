// `npm run screenshots`: pictures of each element's main states and of the demo shop, for the README, saved
// as PNG under docs/screenshots/. It runs the demo (`startDemo`, what `npm start` runs) and the system's
// Chromium, and gets to every state the way a customer would, with the journeys' own steps
// (test/journeys/shop-browser.ts), so the pictures show what the journeys check.
import { mkdir, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { startDemo, type RunningDemo } from '../demo/server/index.js';
import { lastCode } from '../test/demo/shop-client.js';
import {
  addToCart,
  answerOnPhone,
  launchChromium,
  newCustomer,
  payByMobile,
  payOnHostedPage,
  payWith,
  placeOrder,
  reachesState,
} from '../test/journeys/shop-browser.js';

const OUT_DIR = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
/** A phone's screen, drawn at twice the pixels for crisp text; the shop's overview on a laptop's. */
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 };
const DESKTOP = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 };
/** Each picture stays small enough to sit in the repository. */
const MAX_BYTES = 200_000;

/** Saves a picture of a locator (an element's card) or a whole page, and says its size. */
async function shot(target: Locator | Page, name: string): Promise<void> {
  const path = `${OUT_DIR}${name}.png`;
  await target.screenshot({ path, animations: 'disabled', caret: 'hide' });
  const { size } = await stat(path);
  if (size > MAX_BYTES) throw new Error(`${name}.png is ${size} bytes, over ${MAX_BYTES}`);
  process.stdout.write(`docs/screenshots/${name}.png ${(size / 1000).toFixed(0)} kB\n`);
}

/** A customer's phone-sized tab on the shop, whose pages stay put when a payment completes (to show it). */
async function phoneCustomer(browser: Browser, demo: RunningDemo) {
  const customer = await newCustomer(browser, demo, PHONE);
  await customer.context.addInitScript(() => {
    for (const type of ['payment-completed', 'checkout-completed']) window.addEventListener(type, (e) => e.stopImmediatePropagation(), true);
  });
  return customer;
}

/** The card holding a page's element (the element with its form and labels around it). */
const cardOf = (element: Locator): Locator => element.locator('xpath=ancestor::*[contains(@class, "card")][1]');

async function shopHome(browser: Browser, demo: RunningDemo) {
  const { page, context } = await newCustomer(browser, demo, DESKTOP);
  await page.getByTitle('Sandbox phone').contentFrame().getByRole('heading').first().waitFor();
  await shot(page, 'shop-home');
  await context.close();
}

async function otpVerifyStates(browser: Browser, demo: RunningDemo) {
  const { page, context } = await phoneCustomer(browser, demo);
  await page.goto('/sign-in');
  const otp = page.getByTestId('otp-verify');
  const card = cardOf(otp);
  await otp.getByLabel('Phone number', { exact: true }).pressSequentially('024 000 0001');
  await shot(card, 'otp-verify-idle');

  await otp.getByRole('button', { name: 'Send code' }).click();
  await otp.getByText('Code delivered.').waitFor();
  await shot(card, 'otp-verify-sent');

  const code = await lastCode(demo.url, '233240000001');
  const input = otp.getByLabel('Code from the SMS');
  await input.pressSequentially(code.replace(/^\d/, (d) => String((Number(d) + 1) % 10)));
  await reachesState(otp, 'wrong-code');
  await shot(card, 'otp-verify-wrong-code');

  await input.fill('');
  await input.pressSequentially(code);
  await reachesState(otp, 'verified');
  await shot(card, 'otp-verify-verified');
  await context.close();
}

/** A phone-sized customer on the mobile-money page of a fresh order (a kente stole and a bag of gari). */
async function payPage(browser: Browser, demo: RunningDemo) {
  const customer = await phoneCustomer(browser, demo);
  await addToCart(customer.page, 'Kente stole', 'Gari, 1 kg');
  await placeOrder(customer.page, 'mobile money');
  return { ...customer, element: payByMobile(customer.page), card: cardOf(payByMobile(customer.page)) };
}

async function payByMobileStates(browser: Browser, demo: RunningDemo) {
  // 026 000 0004 waits for the phone: confirm, pending, the phone's prompt, then approved there.
  const paying = await payPage(browser, demo);
  const input = paying.element.getByLabel('Mobile money number', { exact: true });
  await input.pressSequentially('026 000 0004');
  await input.press('Enter');
  await reachesState(paying.element, 'confirm');
  await shot(paying.card, 'pay-by-mobile-confirm');
  await paying.element.getByRole('button', { name: /^Pay / }).click();
  await reachesState(paying.element, 'pending');
  // The total with its charge, as the phone asks it, once the provider answered.
  await paying.element.getByText(/charge\) on /).waitFor();
  await shot(paying.card, 'pay-by-mobile-pending');
  await phonePage(browser, demo, '233260000004');
  await answerOnPhone(paying.context, '233260000004', 'Approve');
  await reachesState(paying.element, 'completed');
  await shot(paying.card, 'pay-by-mobile-completed');
  await paying.context.close();

  const failing = await payPage(browser, demo);
  await payWith(failing.page, '024 000 0002');
  await reachesState(failing.element, 'failed');
  await shot(failing.card, 'pay-by-mobile-failed');
  await failing.context.close();
}

/** The sandbox phone of a number with a payment prompt waiting (and a code texted to it first). */
async function phonePage(browser: Browser, demo: RunningDemo, number: string) {
  const { page, context } = await newCustomer(browser, demo, PHONE);
  await page.goto('/sign-in');
  const otp = page.getByTestId('otp-verify');
  await otp.getByLabel('Phone number', { exact: true }).fill(number);
  await otp.getByRole('button', { name: 'Send code' }).click();
  await reachesState(otp, 'sent');
  await page.goto(`/sandbox/__sandbox/phone?number=${number}`);
  await page.getByRole('region', { name: /^Payment prompt/ }).waitFor();
  await shot(page.getByRole('main'), 'phone-page');
  await context.close();
}

async function checkoutButtonStates(browser: Browser, demo: RunningDemo) {
  const { page, context } = await phoneCustomer(browser, demo);
  await addToCart(page, 'Adinkra tote bag');
  const reference = await placeOrder(page, 'the checkout page');
  const element = page.getByTestId('checkout-button');
  await shot(cardOf(element), 'checkout-button-idle');

  // In a new tab this time, so that this page follows the payment to its end.
  await element.evaluate((el) => el.setAttribute('mode', 'tab'));
  const [hosted] = await Promise.all([context.waitForEvent('page'), element.getByRole('button').click()]);
  await payOnHostedPage(hosted, '233240000001', `/orders/${reference}`);
  await page.bringToFront();
  await reachesState(element, 'completed');
  await shot(cardOf(element), 'checkout-button-completed');
  await context.close();
}

async function main() {
  await mkdir(OUT_DIR, { recursive: true });
  // A tenth of the sandbox's time: test numbers settle in 0.3 s, codes live 30 s, 026 000 0004 never settles.
  const [browser, demo] = await Promise.all([launchChromium(), startDemo({ port: 0, timeScale: 0.1, logLevel: 'silent' })]);
  try {
    await shopHome(browser, demo);
    await otpVerifyStates(browser, demo);
    await payByMobileStates(browser, demo);
    await checkoutButtonStates(browser, demo);
  } finally {
    await browser.close();
    await demo.close();
  }
}

await main();
