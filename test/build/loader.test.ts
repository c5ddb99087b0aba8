// cdn/loader.js (src/cdn/loader.ts) in Chromium, on the CDN folder as scripts/build/cdn.ts builds it: what a
// page fetches (the browser's network log), elements that appear later and in shadow roots, French where
// the page's language asks for it, the strict CSP of docs/csp.md, and the one-file builds beside it.
import { readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCdn } from '../../scripts/build/cdn.js';
import { chromiumLaunchOptions } from '../support/chromium.mjs';
import { blocksOf } from '../docs/markdown.js';
import { CDN_PATH, MARKUP, openPage, serveCdn, WATCH_JS, type CdnServer, type OpenPage, type TestPage } from './cdn-pages.js';

const LOADER = '<script type="module" src="CDN/loader.js"></script>';
const ELEMENTS = ['otp-verify', 'pay-by-mobile', 'checkout-button'] as const;

const PAGES: Record<string, TestPage> = {
  'pay-by-mobile': { head: LOADER, body: MARKUP['pay-by-mobile'] },
  all: { head: LOADER, body: Object.values(MARKUP).join('\n') },
  empty: { head: `${LOADER}<script type="module" src="/js/later.js"></script>`, body: '<main></main>' },
  declarative: { head: LOADER, body: `<div id="host"><template shadowrootmode="open"><p>${MARKUP['checkout-button']}</p></template></div>` },
  french: { lang: 'fr', head: LOADER, body: MARKUP['otp-verify'] },
  'french-part': { head: LOADER, body: `${MARKUP['pay-by-mobile']}<section lang="fr-CI">${MARKUP['otp-verify']}</section>` },
  // The one-file script alone: French is fr.js, which this page does not load.
  'iife-alone': { lang: 'fr', head: '<script src="CDN/merchant-elements.iife.js"></script>', body: MARKUP['otp-verify'] },
  iife: { lang: 'fr', head: '<script src="CDN/merchant-elements.iife.js"></script><script src="CDN/fr.js"></script>', body: MARKUP['otp-verify'] },
  // fr.js first: a module runs when the page is parsed, and the elements render as soon as they are defined.
  esm: { lang: 'fr', head: '<script type="module" src="CDN/fr.js"></script><script type="module" src="CDN/merchant-elements.js"></script>', body: MARKUP['otp-verify'] },
  'one-file-and-loader': { head: `<script type="module" src="CDN/merchant-elements.js"></script>${LOADER}`, body: Object.values(MARKUP).join('\n') },
};

/** docs/elements.md's loader snippets as pages: the hints and the loader in the head, the element (and its fallback) in the body. */
const DOC_SNIPPETS = blocksOf('docs/elements.md').filter((b) => b.lang === 'html' && b.code.includes('cdn/loader.js'));
DOC_SNIPPETS.forEach(({ code }, i) => {
  const lines = code.trim().split('\n');
  const inHead = (line: string) => /^<(link|script)\b/.test(line);
  PAGES[`docs-${i}`] = {
    head: lines.filter(inHead).join('').replaceAll('/assets/merchant-elements/cdn/', 'CDN/'),
    body: lines.filter((line) => !inHead(line)).join('\n'),
  };
});

// Once the page has loaded: an open shadow root holding a closed one holding <otp-verify>, and an open one
// with <checkout-button> put in it afterwards.
const LATER_JS = `await new Promise((resolve) => setTimeout(resolve, 50));
const outer = document.querySelector('main').appendChild(document.createElement('div')).attachShadow({ mode: 'open' });
const inner = outer.appendChild(document.createElement('div')).attachShadow({ mode: 'closed' });
const otp = document.createElement('otp-verify');
inner.append(otp);
window.lateOtp = otp;
const box = document.body.appendChild(document.createElement('div')).attachShadow({ mode: 'open' });
await new Promise((resolve) => setTimeout(resolve, 50));
box.innerHTML = '<span><checkout-button></checkout-button></span>';
window.lateCheckout = box.querySelector('checkout-button');`;

let files: Map<string, string>;
let sharedChunk: string;
let server: CdnServer;
let browser: Browser;
const opened: OpenPage[] = [];

beforeAll(async () => {
  ({ files, sharedChunk } = await buildCdn());
  [server, browser] = await Promise.all([
    serveCdn(files, PAGES, { watch: WATCH_JS, later: LATER_JS }),
    chromium.launch(chromiumLaunchOptions()),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(name: string, query = '') {
  const page = await openPage(browser, `${server.url}/page/${name}${query}`);
  opened.push(page);
  return page;
}

/** Waits until every element of `tags` on the page (shadow roots included) has rendered its shadow content. */
const rendered = (p: OpenPage, tags: readonly string[]) =>
  p.page.waitForFunction(
    (tags) => tags.every((tag) => customElements.get(tag)) && [...document.querySelectorAll(tags.join())].every((el) => el.shadowRoot?.querySelector('button')),
    tags,
  );

/** The text of the first button of the element `selector` finds. */
const buttonText = (p: OpenPage, selector: string) => p.page.evaluate((s) => document.querySelector(s)!.shadowRoot!.querySelector('button')!.textContent!.trim(), selector);

/** The element a docs snippet puts on its page. */
const tagOf = (code: string) => (['pay-by-mobile', 'otp-verify', 'checkout-button'] as const).find((tag) => code.includes(`<${tag}`))!;

describe('cdn/loader.js', () => {
  it("a page with only <pay-by-mobile> fetches the loader, the shared chunk and that element's module: no other element's code, no French", async () => {
    const p = await open('pay-by-mobile');
    await rendered(p, ['pay-by-mobile']);
    await p.page.waitForLoadState('networkidle');
    expect(p.cdnFiles().sort()).toEqual(['loader.js', 'pay-by-mobile.js', sharedChunk].sort());
    expect(await p.page.evaluate(() => [customElements.get('otp-verify'), customElements.get('checkout-button')])).toEqual([undefined, undefined]);
    expect(p.errors).toEqual([]);
  });

  it("docs/elements.md's snippets hint the files the loader then uses, each fetched once (French with fr.js)", async () => {
    expect(DOC_SNIPPETS.map((b) => [tagOf(b.code), b.code.includes('fr.js')])).toEqual([['pay-by-mobile', false], ['checkout-button', false], ['pay-by-mobile', true]]);
    for (const [i, { code }] of DOC_SNIPPETS.entries()) {
      const p = await open(`docs-${i}`);
      await rendered(p, [tagOf(code)]);
      await p.page.waitForLoadState('networkidle');
      const hinted = [...code.matchAll(/rel="modulepreload" href="[^"]*\/([\w.-]+)"/g)].map((m) => m[1]!);
      expect(p.cdnFiles().sort(), code).toEqual([...hinted, 'loader.js'].sort());
      expect(hinted).toContain(sharedChunk);
      expect(p.errors).toEqual([]);
    }
  });

  it("docs/elements.md's snippets: typed into before the modules come, the number, caret and focus are the built element's, and the number is looked up", async () => {
    // The snippets with a fallback input (<checkout-button>'s fallback is a form: test/journeys/checkout-before-its-script.test.ts).
    for (const i of DOC_SNIPPETS.keys()) {
      if (tagOf(DOC_SNIPPETS[i]!.code) !== 'pay-by-mobile') continue;
      const page = await browser.newPage();
      try {
        // The CDN's answers held until the customer has typed: the page as a phone shows it before they come.
        let release!: () => void;
        const typed = new Promise<void>((resolve) => (release = resolve));
        await page.route(`**${CDN_PATH}/**`, async (route) => (await typed, route.continue()));
        await page.goto(`${server.url}/page/docs-${i}`, { waitUntil: 'commit' });
        const fallback = page.locator('pay-by-mobile > label > input');
        await fallback.click();
        await page.keyboard.type('02400001');
        await page.keyboard.press('ArrowLeft');
        await page.keyboard.press('ArrowLeft');
        expect(await page.evaluate(() => customElements.get('pay-by-mobile'))).toBeUndefined();
        release();
        await rendered({ page } as OpenPage, ['pay-by-mobile']);
        const own = () =>
          page.evaluate(() => {
            const root = document.querySelector('pay-by-mobile')!.shadowRoot!;
            const input = root.querySelector('input')!;
            return { value: input.value, focused: root.activeElement === input, caret: input.selectionStart, fallbackShown: document.querySelector('pay-by-mobile > label')!.checkVisibility() };
          });
        expect(await own()).toEqual({ value: '02400001', focused: true, caret: 6, fallbackShown: false });
        await page.keyboard.type('00');
        const lookup = page.waitForRequest((r) => r.url().endsWith('/merchant-elements/accounts/lookup'));
        await page.keyboard.press('Enter');
        expect((await lookup).postDataJSON()).toEqual({ msisdn: '0240000001' });
      } finally {
        await page.close();
      }
    }
  });

  it('a page with the three fetches each module once, and Lit once', async () => {
    const p = await open('all');
    await rendered(p, ELEMENTS);
    await p.page.waitForLoadState('networkidle');
    expect(p.cdnFiles().sort()).toEqual(['checkout-button.js', 'loader.js', 'otp-verify.js', 'pay-by-mobile.js', sharedChunk].sort());
    expect(await p.page.evaluate(() => (window as unknown as { litElementVersions: string[] }).litElementVersions.length)).toBe(1);
  });

  it("exports from each element's module what its npm entry exports: a checkout return page imports closeCheckoutPopup", async () => {
    const p = await open('pay-by-mobile');
    // A string: vitest would rewrite an import() in a function passed to the page.
    const names = await p.page.evaluate(`import('${server.url}${CDN_PATH}/checkout-button.js').then((m) => Object.keys(m).sort())`);
    expect(names).toEqual(['CheckoutButton', 'MerchantEvent', 'ProxyClientError', 'closeCheckoutPopup']);
  });

  it('defines elements added after load inside shadow roots (open, closed, nested), and nothing else', async () => {
    const p = await open('empty');
    await p.page.waitForFunction(() => {
      const w = window as unknown as { lateOtp?: Element; lateCheckout?: Element };
      return !!w.lateOtp?.shadowRoot?.querySelector('[part~=send-button]') && !!w.lateCheckout?.shadowRoot?.querySelector('button');
    });
    expect(p.cdnFiles()).not.toContain('pay-by-mobile.js');
    expect(p.errors).toEqual([]);
  });

  it('defines an element in a declarative shadow root, there before the loader ran', async () => {
    const p = await open('declarative');
    await p.page.waitForFunction(() => !!document.querySelector('#host')!.shadowRoot!.querySelector('checkout-button')!.shadowRoot?.querySelector('button'));
    expect(p.errors).toEqual([]);
  });

  it('brings French where the language is French (<html lang="fr">, lang="fr-CI" on an ancestor), and only there', async () => {
    const fr = await open('french');
    await fr.page.waitForFunction(() => document.querySelector('otp-verify')?.shadowRoot?.querySelector('button')?.textContent?.includes('Envoyer'));
    expect(fr.cdnFiles()).toContain('fr.js');

    const part = await open('french-part');
    await part.page.waitForFunction(() => document.querySelector('otp-verify')?.shadowRoot?.querySelector('button')?.textContent?.includes('Envoyer'));
    // Each element's module arrives on its own: <pay-by-mobile> may render after <otp-verify> did.
    await rendered(part, ['pay-by-mobile']);
    expect(await buttonText(part, 'pay-by-mobile')).toBe('Continue');

    const english = await open('pay-by-mobile');
    await rendered(english, ['pay-by-mobile']);
    await english.page.waitForLoadState('networkidle');
    expect(english.cdnFiles()).not.toContain('fr.js');
  });

  it('brings French when the page turns French after load, and the elements render in it', async () => {
    const p = await open('all');
    await rendered(p, ELEMENTS);
    expect(p.cdnFiles()).not.toContain('fr.js');
    await p.page.evaluate(() => (document.documentElement.lang = 'fr'));
    await p.page.waitForFunction(() => document.querySelector('checkout-button')?.shadowRoot?.querySelector('button')?.textContent?.includes('Payer'));
    // Each element renders its French in its own update: wait for <otp-verify>'s too.
    await p.page.waitForFunction(() => document.querySelector('otp-verify')?.shadowRoot?.querySelector('button')?.textContent?.trim() !== 'Send code');
    expect(await buttonText(p, 'otp-verify')).toBe('Envoyer le code');
    expect(p.cdnFiles().filter((f) => f === 'fr.js')).toHaveLength(1);
  });

  it.each([
    ['the strict policy of docs/csp.md', 'strict'],
    ['the strict policy with Trusted Types enforced', 'tt'],
    ["a nonce on the loader's tag and 'strict-dynamic'", 'nonce'],
  ])('runs under %s: no violation, every element rendered', async (_name, csp) => {
    const p = await open('all', `?csp=${csp}`);
    await rendered(p, ELEMENTS);
    expect(await p.violations()).toEqual([]);
    expect(p.errors).toEqual([]);
  });

  it('runs from a CDN host the policy names in script-src (modules are fetched with CORS), and is refused by script-src alone', async () => {
    const p = await open('pay-by-mobile', '?csp=cdn&cdn=other');
    await rendered(p, ['pay-by-mobile']);
    expect(p.requests.filter((r) => r.includes('/loader.js'))).toEqual([expect.stringMatching(/^http:\/\/localhost:/)]);
    expect(await p.violations()).toEqual([]);

    const refused = await open('pay-by-mobile', '?csp=strict&cdn=other');
    await expect.poll(() => refused.violations()).toEqual([expect.stringMatching(/^script-src-elem http:\/\/localhost:\d+\/.*\/loader\.js$/)]);
    expect(await refused.page.evaluate(() => customElements.get('pay-by-mobile'))).toBeUndefined();
  });

  it("says which file failed in the console, and loads it when the tag appears again", async () => {
    const p = await open('pay-by-mobile');
    await rendered(p, ['pay-by-mobile']);
    server.failNext('checkout-button.js');
    await p.page.evaluate(() => document.body.append(document.createElement('checkout-button')));
    await expect.poll(() => p.errors).toContainEqual(expect.stringMatching(/^merchant-elements: could not load checkout-button\.js /));
    await p.page.evaluate(() => document.body.append(document.createElement('checkout-button')));
    await rendered(p, ['checkout-button']);
  });
});

describe('the one-file builds beside it', () => {
  it.each([
    ['merchant-elements.iife.js and fr.js as classic scripts', 'iife'],
    ['merchant-elements.js and fr.js as modules', 'esm'],
  ])('%s: the three elements, in French on a French page', async (_name, page) => {
    const p = await open(page, '?csp=strict');
    await p.page.waitForFunction(() => document.querySelector('otp-verify')?.shadowRoot?.querySelector('button')?.textContent?.includes('Envoyer'));
    expect(await p.page.evaluate((tags) => tags.filter((tag) => customElements.get(tag)), ELEMENTS)).toEqual(ELEMENTS);
    expect(await p.violations()).toEqual([]);
    expect(p.errors).toEqual([]);
  });

  it('merchant-elements.iife.js alone on a French page is English: French is fr.js, as docs/elements.md and docs/script-tag.md say', async () => {
    const p = await open('iife-alone', '?csp=strict');
    await rendered(p, ['otp-verify']);
    expect(await buttonText(p, 'otp-verify')).toBe('Send code');
    expect(p.cdnFiles()).not.toContain('fr.js');
    expect(p.errors).toEqual([]);
    // What the docs say of the one-file script: English, French from fr.js loaded before it.
    const docs = ['docs/elements.md', 'docs/script-tag.md'].map((f) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8'));
    for (const text of docs) expect(text).toMatch(/in English[\s\S]{0,240}`fr\.js`/);
    expect(docs.join('\n')).not.toMatch(/French and Lit|CDN files include it|for all three and French/);
  });

  it('a page with merchant-elements.js and the loader: the loader fetches nothing more', async () => {
    const p = await open('one-file-and-loader');
    await rendered(p, ELEMENTS);
    await p.page.waitForLoadState('networkidle');
    expect(p.cdnFiles().sort()).toEqual(['loader.js', 'merchant-elements.js']);
    expect(p.errors).toEqual([]);
  });
});

afterAll(async () => {
  await Promise.all(opened.map((p) => p.page.close().catch(() => undefined)));
});
