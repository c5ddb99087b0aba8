import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCdnIife } from '../../demo/server/cdn-build.js';
import { blocksOf } from '../docs/markdown.js';
import { startHarness, TEST_SECRET, type Harness } from '../proxy/helpers.js';
import { chromiumLaunchOptions } from '../support/chromium.mjs';

// A customer on a slow phone presses docs/elements.md's <checkout-button> snippet before the element's script
// has come (or on a page that never gets it), and after: the form and the element reach the same hosted
// checkout session of the order.
const HOSTED_PAGE = /\/checkout\/([^/?]+)/;

describe('journey: a customer presses the checkout button before its script has come, and after', { timeout: 90_000 }, () => {
  let h: Harness;
  let browser: Browser;
  // The snippet's tag, as a reader copies it (its loader lines are replaced by the one-file build below).
  const snippet = /<checkout-button[\s\S]*<\/checkout-button>/.exec(
    blocksOf('docs/elements.md').find((b) => b.lang === 'html' && b.code.includes('<checkout-button') && b.code.includes('<form'))?.code ?? '',
  )?.[0];

  beforeAll(async () => {
    const [script, launched, harness] = await Promise.all([buildCdnIife(), chromium.launch(chromiumLaunchOptions()), startHarness({ sandbox: { timeScale: 0.05 } })]);
    browser = launched;
    h = harness;
    h.app.get('/merchant-elements.iife.js', (_req, res) => void res.type('text/javascript').send(script));
    // The shop's order page, its token minted for the order on each load, as a shop renders it.
    h.app.get('/orders/:ref', async (req, res) => {
      const claims = { title: 'Order', reference: req.params.ref, amount: 45, description: 'An order', returnUrl: `${h.origin}/orders/${req.params.ref}` };
      // ?expired: the token of a page left open past its expiry.
      const token = req.query['expired'] !== undefined
        ? await new SignJWT({ ...claims, scope: 'checkout', aud: 'merchant-elements', exp: Math.floor(Date.now() / 1000) - 60, jti: randomBytes(12).toString('base64url') })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(TEST_SECRET))
        : await h.mintCheckout(claims);
      const script = req.query['script'] === 'no' ? '' : '<script src="/merchant-elements.iife.js" defer></script>';
      res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8">${script}</head><body><main><h1>Order ${req.params.ref}</h1>
${snippet!.replace('TOKEN-FROM-YOUR-SERVER', token)}</main></body></html>`);
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const sessionsOf = (ref: string) => [...h.sandbox.app.sandbox.checkouts.values()].filter((c) => c.reference === ref);

  it('the snippet carries a form posting the token to the proxy', () => {
    expect(snippet).toMatch(/<form method="post" action="\/merchant-elements\/checkouts\/start">/);
    expect(snippet).toContain('name="token" value="TOKEN-FROM-YOUR-SERVER"');
  });

  it('before the script: the form lands on the hosted page; after it: the element’s press lands on the same session', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The script held back: the customer presses what the page shows.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/merchant-elements.iife.js', async (route) => (await held, route.continue()));
    await page.goto(`${h.origin}/orders/SLOW-1`, { waitUntil: 'commit' });
    await page.getByRole('button', { name: 'Pay GHS 45.00' }).click();
    await page.waitForURL(HOSTED_PAGE);
    const first = HOSTED_PAGE.exec(page.url())![1];
    expect(await page.getByLabel('Mobile money number').count()).toBe(1);
    expect(sessionsOf('SLOW-1').map((c) => c.checkoutId)).toEqual([first]);
    release();

    // Back at the order (a new token, the same order), the script comes: the press is the element's.
    await page.goto(`${h.origin}/orders/SLOW-1`);
    await page.waitForFunction(() => !!document.querySelector('checkout-button')?.shadowRoot?.querySelector('button'));
    const formPosts: string[] = [];
    page.on('request', (r) => r.url().endsWith('/checkouts/start') && formPosts.push(r.url()));
    const elementCall = page.waitForRequest((r) => r.url().endsWith('/merchant-elements/checkouts') && r.method() === 'POST');
    // One button for a screen reader, named as the form's was.
    await page.getByRole('button', { name: 'Pay GHS 45.00' }).click();
    await elementCall;
    await page.waitForURL(HOSTED_PAGE);
    expect(HOSTED_PAGE.exec(page.url())![1]).toBe(first);
    expect(formPosts).toEqual([]);
    // One session for the order, whichever way it was pressed.
    expect(sessionsOf('SLOW-1')).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('with no script at all, the form alone pays: the hosted page, then back at the order', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${h.origin}/orders/NOSCRIPT-1?script=no`);
    await page.getByRole('button', { name: 'Pay GHS 45.00' }).click();
    await page.waitForURL(HOSTED_PAGE);
    expect(sessionsOf('NOSCRIPT-1')).toHaveLength(1);
    await context.close();
  });

  it('a page left open past its token: the form’s press answers a page saying to reload, linking back to the order', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${h.origin}/orders/LATE-1?script=no&expired`);
    await page.getByRole('button', { name: 'Pay GHS 45.00' }).click();
    await page.getByRole('heading', { name: 'The payment did not start' }).waitFor();
    expect(await page.locator('main').getAttribute('data-error')).toBe('TOKEN_EXPIRED');
    await page.getByText('This page has expired. Reload it to continue.').waitFor();
    await page.getByText('Go back to the page and reload it, then press the button again.').waitFor();
    await page.getByRole('link', { name: 'Back to the page' }).click();
    await page.waitForURL(`${h.origin}/orders/LATE-1?script=no&expired`);
    expect(sessionsOf('LATE-1')).toHaveLength(0);
    await context.close();
  });
});
