// A page on an origin the proxy does not allow, in Chromium, with two origins on loopback: one page server
// reached as http://127.0.0.1:port (listed in allowedOrigins) and as http://localhost:port (not listed),
// the proxy on a third. The browser hides a refused preflight from the page, so each element used to say
// "No connection"; now it says the page may not use the service, and the console names the origin and the
// setting, while nothing reaches the provider.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCdnIife } from '../../demo/server/cdn-build.js';
import { startHarness, type Harness } from '../proxy/helpers.js';
import { launchChromium, reachesState, STEP_TIMEOUT_MS } from './shop-browser.js';

const REFUSED_SENTENCE = 'This page may not take payments. Contact the shop.';

let browser: Browser;
let pages: Server;
let harness: Harness;
let port: number;

beforeAll(async () => {
  const [script, launched] = await Promise.all([buildCdnIife(), launchChromium()]);
  browser = launched;
  const app = express();
  app.get('/elements.js', (_req, res) => void res.type('js').send(script));
  // Tokens are minted per page, as a shop's server renders them.
  app.get('/shop', async (_req, res) => {
    const [otp, payment, checkout] = await Promise.all([harness.mintOtp(), harness.mintPayment(), harness.mintCheckout()]);
    const proxy = harness.baseUrl;
    res.type('html').send(`<!doctype html><html lang="en"><head><link rel="icon" href="data:,"><script src="/elements.js"></script></head><body>
      <otp-verify proxy="${proxy}" token="${otp}"></otp-verify>
      <pay-by-mobile proxy="${proxy}" token="${payment}"></pay-by-mobile>
      <checkout-button proxy="${proxy}" token="${checkout}" mode="tab">Pay on the checkout page</checkout-button>
    </body></html>`);
  });
  pages = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  port = (pages.address() as AddressInfo).port;
  harness = await startHarness({ config: { allowedOrigins: [`http://127.0.0.1:${port}`] } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (pages) await new Promise((resolve) => pages.close(resolve));
  await harness?.close();
});

/** Opens the shop page on `host`; the page and what its console warned. */
async function open(host: string): Promise<{ page: Page; warnings: string[] }> {
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const warnings: string[] = [];
  page.on('console', (m) => void (m.type() === 'warning' && warnings.push(m.text())));
  page.on('pageerror', (e) => warnings.push(`pageerror: ${e.message}`));
  await page.goto(`http://${host}:${port}/shop`);
  return { page, warnings };
}

const sandbox = () => harness.sandbox.app.sandbox;
const count = (route: string) => sandbox().requestCounts.get(route) ?? 0;

describe('a page on an origin the proxy does not allow (http://localhost:port)', () => {
  it('each element says the page may not use the service, the console names the origin and the setting, the provider hears nothing', async () => {
    const before = { lookup: count('payment.accountHolder'), otp: count('otp.generate'), checkout: count('checkout.initialize') };
    const { page, warnings } = await open('localhost');
    const refusedOrigin = `http://localhost:${port}`;

    const pay = page.locator('pay-by-mobile');
    const number = pay.getByLabel('Mobile money number', { exact: true });
    await number.pressSequentially('024 000 0001', { delay: 10 });
    await number.press('Enter');
    await pay.getByText(REFUSED_SENTENCE).waitFor();

    const otp = page.locator('otp-verify');
    await otp.getByLabel('Phone number', { exact: true }).pressSequentially('024 000 0001', { delay: 10 });
    await otp.getByRole('button', { name: 'Send code' }).click();
    await otp.getByText(REFUSED_SENTENCE).waitFor();

    await page.locator('checkout-button').getByRole('button').click();
    await page.locator('checkout-button').getByText(REFUSED_SENTENCE).waitFor();

    for (const element of ['otp-verify', 'pay-by-mobile', 'checkout-button']) {
      expect(await page.locator(element).evaluate((el) => el.shadowRoot!.textContent), element).not.toMatch(/No connection/);
    }
    const hints = warnings.filter((w) => w.includes('ORIGIN_NOT_ALLOWED'));
    // One per refused call: <pay-by-mobile>'s read of its order as it loads, then each element's action.
    expect(hints, warnings.join('\n')).toHaveLength(4);
    for (const hint of hints) expect(hint).toContain(refusedOrigin), expect(hint).toContain('PROXY_ALLOWED_ORIGINS');
    expect({ lookup: count('payment.accountHolder'), otp: count('otp.generate'), checkout: count('checkout.initialize') }).toEqual(before);
    expect(harness.smsTo('233240000001')).toEqual([]);

    // The server's log says the same, for whoever reads it there.
    const refusals = harness.logs.entries().filter((e) => e['origin'] === refusedOrigin && typeof e['fix'] === 'string');
    expect(refusals.length).toBeGreaterThan(0);
    await page.close();
  });
});

describe('the same page on an origin the proxy allows (http://127.0.0.1:port)', () => {
  it('looks the number up and offers to pay: the refusal above was the origin, not the page', async () => {
    const { page, warnings } = await open('127.0.0.1');
    const pay = page.locator('pay-by-mobile');
    const number = pay.getByLabel('Mobile money number', { exact: true });
    await number.pressSequentially('024 000 0001', { delay: 10 });
    await number.press('Enter');
    await reachesState(pay, 'confirm');
    expect(await pay.evaluate((el) => el.shadowRoot!.textContent)).not.toContain(REFUSED_SENTENCE);
    expect(warnings).toEqual([]);
    await page.close();
  });
});
