// What lets the slow-phone section count a page's fallback input as usable: on that very page, as served,
// a customer types into the fallback while the element's scripts are held back, the scripts then come, and
// the element's own input must hold what was typed, with the caret and the focus, and the number must go out
// in the element's first request when Enter is pressed. A page where that fails stops the bench.
import type { Browser } from 'playwright-core';

/** The request each element sends the number in, and the field that carries it. */
const SENT_IN = {
  'pay-by-mobile': { path: '/merchant-elements/accounts/lookup', field: 'msisdn' },
  'otp-verify': { path: '/merchant-elements/otp/send', field: 'recipient' },
} as const;

/** Types into the fallback of the `tag` on `url` before its scripts come; throws unless the element kept it all. */
export async function checkFallbackAdopted(browser: Browser, url: string, tag: keyof typeof SENT_IN): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    let release!: () => void;
    const typed = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/cdn/**', async (route) => (await typed, route.continue()));
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator(`${tag} > label > input`).click();
    await page.keyboard.type('02400001');
    // The caret moved back: the element must keep it, the next digits go there.
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    if (await page.evaluate((t) => !!customElements.get(t), tag)) throw new Error(`${url}: <${tag}> was defined before its scripts were let through`);
    release();
    await page.waitForFunction((t) => !!document.querySelector(t)?.shadowRoot?.querySelector('input'), tag, { timeout: 30_000 });
    const kept = await page.evaluate((t) => {
      const root = document.querySelector(t)!.shadowRoot!;
      const input = root.querySelector('input')!;
      return { value: input.value, focused: root.activeElement === input, caret: input.selectionStart };
    }, tag);
    if (kept.value !== '02400001' || !kept.focused || kept.caret !== 6) throw new Error(`${url}: <${tag}> did not keep what was typed in its fallback: ${JSON.stringify(kept)}`);
    await page.keyboard.type('00');
    const { path, field } = SENT_IN[tag];
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === path, { timeout: 30_000 });
    await page.keyboard.press('Enter');
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    if (body[field] !== '0240000001') throw new Error(`${url}: <${tag}> sent ${JSON.stringify(body)}, not the number typed (0240000001)`);
  } finally {
    await context.close();
  }
}

/** Where the sandbox's hosted checkout page lives: `/checkout/<checkoutId>` on its origin. */
const HOSTED_PAGE = /^http:\/\/127\.0\.0\.1:\d+\/checkout\/[^/?]+/;

/**
 * What lets the section count `<checkout-button>`'s fallback button as usable: on its page as served, pressed
 * while the element's scripts are held back, the form takes the browser to the hosted checkout page; and once
 * the scripts have come (the fallback focused before), the focus is on the element's own button and Enter
 * there is the element's call (`POST /checkouts`, never the form's), which lands on a hosted page too.
 */
export async function checkFallbackButton(browser: Browser, url: string): Promise<void> {
  const fallback = 'checkout-button > form > button';
  // Before the scripts: the form alone.
  let context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.route('**/cdn/**', () => undefined);
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator(fallback).click({ noWaitAfter: true, timeout: 30_000 });
    await page.waitForURL(HOSTED_PAGE, { timeout: 30_000 });
  } catch (e) {
    throw new Error(`${url}: <checkout-button>'s fallback pressed before its scripts did not reach the hosted checkout page: ${(e as Error).message}`);
  } finally {
    await context.close();
  }
  // The scripts come after the fallback was focused: the element's button takes the focus and the press.
  context = await browser.newContext();
  try {
    const page = await context.newPage();
    let release!: () => void;
    const focused = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/cdn/**', async (route) => (await focused, route.continue()));
    const formPosts: string[] = [];
    page.on('request', (r) => new URL(r.url()).pathname.endsWith('/checkouts/start') && formPosts.push(r.url()));
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator(fallback).focus({ timeout: 30_000 });
    if (await page.evaluate(() => !!customElements.get('checkout-button'))) throw new Error(`${url}: <checkout-button> was defined before its scripts were let through`);
    release();
    await page.waitForFunction(() => document.querySelector('checkout-button')?.shadowRoot?.activeElement?.matches('[part~="button"]'), undefined, { timeout: 30_000 });
    const sent = page.waitForRequest((r) => new URL(r.url()).pathname === '/merchant-elements/checkouts' && r.method() === 'POST', { timeout: 30_000 });
    await page.keyboard.press('Enter');
    const request = await sent;
    if (!request.headers()['authorization']?.startsWith('Bearer ')) throw new Error(`${url}: <checkout-button> called POST /checkouts without the form's token`);
    await page.waitForURL(HOSTED_PAGE, { timeout: 30_000 });
    if (formPosts.length) throw new Error(`${url}: the fallback form was posted after <checkout-button> adopted it`);
  } finally {
    await context.close();
  }
}
