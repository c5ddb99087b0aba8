// A customer's Chromium on a fresh demo shop (`startDemo`, what `npm start` runs), and the steps every
// journey shares, taken through the UI as a person would: labels, roles, the keyboard and clicks.
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { createDemoVite, startDemo, type RunningDemo } from '../../demo/server/index.js';
import { lastCode } from '../demo/shop-client.js';
import { chromiumLaunchOptions } from '../support/chromium.mjs';

let vite: Promise<ViteDevServer> | undefined;

/**
 * The Vite every shop of this test file serves its pages' modules with: each journey starts a fresh shop,
 * but transforming the elements' sources again for each took a second or two of every journey.
 */
function sharedVite(): Promise<ViteDevServer> {
  return (vite ??= createDemoVite('silent'));
}

/**
 * The system's Chromium with the team's flags: nothing here may download a browser. The file's shared Vite
 * closes with it (every journey file closes its browser last).
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    ...chromiumLaunchOptions(),
  });
  browser.on('disconnected', () => {
    const closing = vite;
    vite = undefined;
    void closing?.then((v) => v.close());
  });
  return browser;
}

/** The longest any one step waits (a busy machine shares two cores among several test suites). */
export const STEP_TIMEOUT_MS = 15_000;

/** The longest one journey takes, its shop's start and its hooks included. */
export const JOURNEY_TIMEOUT_MS = 90_000;

/** A customer's browser (a fresh context: no cookies, no session storage) and tab on a demo shop. */
export interface Customer {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the customer's pages: a journey ends with none. */
  errors: string[];
}

/** What a journey is given: a fresh demo shop and a customer on it. */
export interface ShopVisit extends Customer {
  demo: RunningDemo;
  /** Closes the customer's browser context, then the shop. */
  close(): Promise<void>;
}

/** Options of {@link visitShop}. */
export interface VisitOptions {
  /** The sandbox's clock: 0.1 settles a test number's payment in 0.3 s and keeps an OTP alive 30 s. */
  timeScale: number;
  screen?: Screen;
}

/** The screen of a customer's browser: a laptop's by default. */
export interface Screen {
  viewport: { width: number; height: number };
  deviceScaleFactor?: number;
}

/** A new customer on a running shop, on its home page. */
export async function newCustomer(browser: Browser, demo: RunningDemo, screen: Screen = { viewport: { width: 1280, height: 900 } }): Promise<Customer> {
  const context = await browser.newContext({ baseURL: demo.url, ...screen });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const errors: string[] = [];
  context.on('weberror', (e) => errors.push(e.error().message));
  const page = await context.newPage();
  await page.goto('/');
  return { context, page, errors };
}

/** Starts a fresh demo shop (what `npm start` runs) and a new customer on it. */
export async function visitShop(browser: Browser, options: VisitOptions): Promise<ShopVisit> {
  const demo = await startDemo({ port: 0, timeScale: options.timeScale, logLevel: 'silent', vite: await sharedVite() });
  const customer = await newCustomer(browser, demo, options.screen);
  return {
    ...customer,
    demo,
    async close() {
      await customer.context.close();
      await demo.close();
    },
  };
}

/** Waits until an element (`<otp-verify>`, `<pay-by-mobile>`, `<checkout-button>`) is in `state`; says where it is if not. */
export async function reachesState(element: Locator, state: string, timeout = STEP_TIMEOUT_MS): Promise<void> {
  try {
    await element.page().waitForFunction(
      ([el, wanted]) => (el as HTMLElement & { state?: string } | null)?.state === wanted,
      [await element.elementHandle(), state] as const,
      { timeout, polling: 50 },
    );
  } catch (err) {
    const now = await element
      .evaluate((el) => `${(el as HTMLElement & { state?: string }).state}: ${el.shadowRoot?.textContent?.replace(/\s+/g, ' ').trim()}`, undefined, { timeout: 1_000 })
      .catch(() => 'gone');
    throw new Error(`${element} did not reach ${state} (now ${now})`, { cause: err });
  }
}

/** The order page's status banner, once it shows `status` (the page refreshes itself while pending). */
export async function orderShows(page: Page, status: string): Promise<Locator> {
  const banner = page.locator(`[data-testid="order-status"][data-status="${status}"]`);
  try {
    await banner.waitFor({ timeout: STEP_TIMEOUT_MS });
  } catch (err) {
    const now = await page.getByTestId('order-status').getAttribute('data-status', { timeout: 1_000 }).catch(() => 'no banner');
    throw new Error(`the order page at ${page.url()} did not show ${status} (shows ${now})`, { cause: err });
  }
  return banner;
}

/** Adds products to the cart from the home page: the button on each named product's card. */
export async function addToCart(page: Page, ...names: string[]): Promise<void> {
  for (const name of names) {
    await page.goto('/');
    const product = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) });
    await product.getByRole('button', { name: /^Add to cart/ }).click();
    await page.waitForURL('**/cart');
  }
}

/** Orders the cart, paying with mobile money or on the checkout page; resolves the order's reference. */
export async function placeOrder(page: Page, method: 'mobile money' | 'the checkout page'): Promise<string> {
  await page.goto('/cart');
  await page.getByRole('button', { name: method === 'mobile money' ? 'Pay with mobile money' : 'Pay on the checkout page' }).click();
  await page.waitForURL(/\/orders\/ORDER-\d+\/(pay-by-mobile|checkout)$/);
  return /ORDER-\d+/.exec(page.url())![0];
}

/** The shop's `<pay-by-mobile>`. */
export const payByMobile = (page: Page): Locator => page.getByTestId('pay-by-mobile');

/**
 * Types a mobile-money number into `<pay-by-mobile>`, presses Enter to find the account, then presses the
 * Pay button of the confirmation. What follows is the journey's to wait for: a test number may settle, and
 * the page go to the order, before another look at the element.
 */
export async function payWith(page: Page, number: string): Promise<void> {
  const element = payByMobile(page);
  const input = element.getByLabel('Mobile money number', { exact: true });
  await input.fill('');
  await input.pressSequentially(number, { delay: 10 });
  await input.press('Enter');
  await reachesState(element, 'confirm');
  await element.getByRole('button', { name: /^Pay / }).click();
}

/** The sandbox's own record of every payment request it received (the provider's truth). */
export async function sandboxPayments(demo: RunningDemo): Promise<{ msisdn: string; status: string; referenceNo: string }[]> {
  const res = await fetch(`${demo.urls.sandbox}/__sandbox/payments`);
  return ((await res.json()) as { payments: { msisdn: string; status: string; referenceNo: string }[] }).payments;
}

/**
 * Opens the customer's phone (the sandbox phone page) in a second tab, waits for the payment prompt and
 * presses Approve or Decline; the tab is closed afterwards.
 */
export async function answerOnPhone(context: BrowserContext, number: string, answer: 'Approve' | 'Decline'): Promise<void> {
  const phone = await context.newPage();
  try {
    await phone.goto(`/sandbox/__sandbox/phone?number=${number}`);
    // The page reloads itself every few seconds: a prompt not there yet comes with a reload.
    const prompt = phone.getByRole('region', { name: /^Payment prompt/ });
    await prompt.waitFor();
    await prompt.getByRole('button', { name: answer }).click();
    await phone.getByText('No pending payment prompts.').waitFor();
  } finally {
    await phone.close();
  }
}

/**
 * Verifies a number in an `<otp-verify>`: types it, presses Send code, reads the code the sandbox texted
 * (its outbox, as the customer's phone shows it) and types it: a complete code is checked at once. What
 * follows is the caller's to wait for (a page may replace the element as soon as it is verified).
 */
export async function verifyByOtp(otp: Locator, demo: RunningDemo, typed: string, digits: string): Promise<void> {
  await otp.getByLabel('Phone number', { exact: true }).pressSequentially(typed, { delay: 10 });
  await otp.getByRole('button', { name: 'Send code' }).click();
  await reachesState(otp, 'sent');
  await otp.getByLabel('Code from the SMS').pressSequentially(await lastCode(demo.url, digits), { delay: 10 });
}

/** The sandbox's hosted checkout sessions (the provider's truth about checkouts). */
export async function sandboxCheckouts(demo: RunningDemo): Promise<{ reference: string; status: string; msisdn?: string }[]> {
  const res = await fetch(`${demo.urls.sandbox}/__sandbox/checkouts`);
  return ((await res.json()) as { checkouts: { reference: string; status: string; msisdn?: string }[] }).checkouts;
}

/**
 * On the provider's hosted checkout page: types the mobile-money number and presses Pay; resolves once the
 * page sent the customer back to the merchant's `returnUrl`, the order page `returnPath` (it reloads itself
 * while processing; the provider adds its own query).
 */
export async function payOnHostedPage(page: Page, number: string, returnPath: string): Promise<void> {
  await page.waitForURL(/\/sandbox\/checkout\//);
  const input = page.getByLabel('Mobile money number');
  await input.fill('');
  await input.pressSequentially(number, { delay: 10 });
  await page.getByRole('button', { name: /^Pay GHS/ }).click();
  await page.waitForURL((url) => url.pathname === returnPath);
}

/** The screens every issue-20 journey runs at: a laptop's and a phone's. */
export const SCREENS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;

/**
 * What has the keyboard's focus, looked for through shadow roots: `tag[part]` of the deepest focused element
 * (`pay-by-mobile > button[retry-button]`), or `body` when the focus is lost.
 */
export function deepFocus(page: Page): Promise<string> {
  return page.evaluate(() => {
    let el = document.activeElement;
    const path: string[] = [];
    while (el) {
      path.push(`${el.localName}${el.getAttribute('part') ? `[${el.getAttribute('part')}]` : ''}`);
      el = el.shadowRoot?.activeElement ?? null;
    }
    return path.join(' > ');
  });
}

/** Presses Tab until `deepFocus` ends with `target` (at most 40 presses), as a keyboard user walks a page. */
export async function tabTo(page: Page, target: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if ((await deepFocus(page)).endsWith(target)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target} (at ${await deepFocus(page)})`);
}
