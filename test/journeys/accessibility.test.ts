import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../../demo/server/index.js';
import {
  JOURNEY_TIMEOUT_MS,
  addToCart,
  launchChromium,
  newCustomer,
  payByMobile,
  payWith,
  placeOrder,
  reachesState,
  verifyByOtp,
} from './shop-browser.js';

/** The pages every customer (and every evaluator) meets, as paths of one prepared shop. */
interface Pages {
  demo: string[];
  sandbox: string[];
}

/** What axe finds on the page as it is now (the elements' shadow roots included, the phone frame checked on its own page). */
async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axe.source });
  const found = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const result = await run(document, { iframes: false, resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return found;
}

// One shop prepared once: a signed-in customer with an unpaid order, a pending one, a paid one, and hosted
// checkout sessions waiting and processing. Then each page at each size, light and dark.
describe('journey: every demo and sandbox page passes axe, light and dark, laptop and phone', { timeout: JOURNEY_TIMEOUT_MS * 2 }, () => {
  let browser: Browser;
  let demo: RunningDemo;
  let pages: Pages;
  let storageState: Awaited<ReturnType<import('playwright-core').BrowserContext['storageState']>>;

  beforeAll(async () => {
    [browser, demo] = await Promise.all([launchChromium(), startDemo({ port: 0, timeScale: 0.1, logLevel: 'silent' })]);
    const { page, context } = await newCustomer(browser, demo);
    await page.goto('/sign-in');
    const otp = page.getByTestId('otp-verify');
    await verifyByOtp(otp, demo, '024 000 0001', '233240000001');
    await reachesState(otp, 'verified');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/account');

    await addToCart(page, 'Gari, 1 kg');
    const unpaid = await placeOrder(page, 'mobile money');
    await addToCart(page, 'Kente stole');
    const pending = await placeOrder(page, 'mobile money');
    await payWith(page, '026 000 0004');
    await reachesState(payByMobile(page), 'pending');
    await addToCart(page, 'Cocoa nibs, 200 g');
    const paid = await placeOrder(page, 'mobile money');
    await payWith(page, '024 000 0001');
    await page.waitForURL(`**/orders/${paid}`);
    // An order whose three mobile-money attempts were refused: it offers the checkout and a new order.
    await addToCart(page, 'Dried mango, 500 g');
    const spent = await placeOrder(page, 'mobile money');
    await payWith(page, '024 000 0002');
    for (let attempt = 1; attempt < 3; attempt++) {
      await reachesState(payByMobile(page), 'failed');
      await payByMobile(page).getByRole('button', { name: 'Try again' }).click();
    }
    await page.getByTestId('payment-blocked').waitFor();

    // Hosted checkout sessions: one waiting for the customer, one processing (233260000004 never settles).
    await addToCart(page, 'Adinkra tote bag');
    const checkout = await placeOrder(page, 'the checkout page');
    await page.getByTestId('checkout-button').getByRole('button').click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    const payPage = new URL(page.url()).pathname;
    await addToCart(page, 'Adinkra tote bag');
    await placeOrder(page, 'the checkout page');
    await page.getByTestId('checkout-button').getByRole('button').click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    const processing = new URL(page.url()).pathname;
    await page.getByLabel('Mobile money number').fill('233260000004');
    await page.getByRole('button', { name: /^Pay GHS/ }).click();
    await page.getByText('Processing…').waitFor();

    storageState = await context.storageState();
    await context.close();
    pages = {
      demo: [
        '/', '/cart', '/sign-in', '/account',
        `/orders/${unpaid}`, `/orders/${unpaid}/pay-by-mobile`, `/orders/${checkout}/checkout`,
        `/orders/${pending}`, `/orders/${pending}/pay-by-mobile`, `/orders/${paid}`, `/orders/${spent}`, `/orders/${spent}/checkout`,
        '/embed', '/embed/cdn', '/embed/react/', '/embed/vue/',
      ],
      sandbox: [
        payPage, processing, '/sandbox/__sandbox/', '/sandbox/__sandbox/phone',
        '/sandbox/__sandbox/phone?number=233240000001', '/sandbox/__sandbox/phone?number=233260000004',
      ],
    };
  }, JOURNEY_TIMEOUT_MS);
  afterAll(async () => {
    await demo?.close();
    await browser?.close();
  });

  // The two sizes side by side, each page checked light, then dark after the system's switch (the page as
  // loaded, without reloading it): one load a page and size, where a load per scheme doubled the file's time.
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    it.concurrent(`finds nothing at ${viewport.width}×${viewport.height}, light and dark`, async () => {
      const context = await browser.newContext({ baseURL: demo.url, viewport, colorScheme: 'light', storageState, reducedMotion: 'reduce' });
      try {
        const page = await context.newPage();
        const found: Record<string, string[]> = {};
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          // The check can fail: a page with known faults is found out.
          await page.setContent('<html><body><img src="x.png"><p style="color:#777;background:#888">dim</p></body></html>');
          expect((await violations(page)).map((v) => v.split(' ')[0])).toEqual(expect.arrayContaining(['color-contrast', 'image-alt']));
        }
        for (const path of [...pages.demo, ...pages.sandbox]) {
          await page.emulateMedia({ colorScheme: 'light' });
          await page.goto(path);
          // Elements upgraded and settled into their first state (a resumed payment: pending).
          await page.waitForFunction(() =>
            [...document.querySelectorAll('otp-verify, pay-by-mobile, checkout-button')].every(
              (el) => el.shadowRoot?.childElementCount && !['loading', 'looking-up'].includes((el as HTMLElement & { state?: string }).state!),
            ),
          );
          if (path.startsWith('/embed/') && path.endsWith('/')) await payByMobile(page).getByText('GHS').first().waitFor();
          for (const colorScheme of ['light', 'dark'] as const) {
            await page.emulateMedia({ colorScheme });
            // The switch has been painted: the page's own colour scheme answers as the system's.
            await page.waitForFunction((dark) => matchMedia('(prefers-color-scheme: dark)').matches === dark, colorScheme === 'dark');
            await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
            const v = await violations(page);
            if (v.length) found[`${path} (${colorScheme})`] = v;
          }
        }
        expect(found).toEqual({});
      } finally {
        await context.close();
      }
    });
  }
});
