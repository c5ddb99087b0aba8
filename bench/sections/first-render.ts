import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../../test/support/chromium.mjs';
import type { Figure, SectionResult } from '../lib/report.js';
import { fmt, median, times } from '../lib/stats.js';

const ELEMENTS = ['otp-verify', 'pay-by-mobile', 'checkout-button'] as const;
const KINDS = ['button', ...ELEMENTS] as const;
type Kind = (typeof KINDS)[number];
interface Sample {
  render: number;
  interactive: number;
}

const ROUNDS = 60;
const WARMUP = 10;
const COLD_PAGES = 5;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>first render</title>
<script type="module" src="/merchant-elements.js"></script>
<script type="module" src="/measure-insert.js"></script>
</head><body><main id="host"></main></body></html>`;

/** A JWT-shaped token: the elements only read its claims (the proxy, never called here, would verify it). */
function token(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ exp: Math.floor(Date.now() / 1000) + 900, ...claims })}.signature`;
}

const TOKENS: Record<Kind, string> = {
  button: '',
  'otp-verify': token({ scope: 'otp', purpose: 'sign-in' }),
  'pay-by-mobile': token({ scope: 'payment', amount: 12.5, referenceNo: 'ORDER-1', narration: 'Order', payee: 'Shop', maxAttempts: 3 }),
  'checkout-button': token({ scope: 'checkout', title: 'Order', reference: 'CO-1', amount: 25, description: 'An order', returnUrl: 'https://shop.example/' }),
};

/**
 * Serves the page, the CDN ES module from `cdnDir` and the measuring script on loopback, cross-origin
 * isolated (so `performance.now()` has its fine resolution). Anything else asked for (a call to a proxy)
 * is counted and refused.
 */
async function servePage(cdnDir: string): Promise<{ server: Server; url: string; others: string[] }> {
  const files: Record<string, { type: string; body: string | Buffer }> = {
    '/': { type: 'text/html', body: PAGE },
    '/merchant-elements.js': { type: 'text/javascript', body: await readFile(`${cdnDir}/merchant-elements.js`) },
    '/measure-insert.js': { type: 'text/javascript', body: await readFile(fileURLToPath(new URL('../fixtures/measure-insert.js', import.meta.url))) },
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  };
  const others: string[] = [];
  const server = createServer((req, res) => {
    const file = files[(req.url ?? '/').split('?')[0]!];
    if (!file) {
      others.push(`${req.method} ${req.url}`);
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': `${file.type}; charset=utf-8`,
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'cache-control': 'no-store',
    });
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, others };
}

/** A new tab on the page, once every element is defined and the measuring script loaded. */
async function openPage(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(url);
  // Strings, not functions: what tsx compiles could carry helpers the page does not have.
  await page.waitForFunction(
    `${JSON.stringify(ELEMENTS)}.every((tag) => customElements.get(tag)) && typeof window.benchInsertions === 'function'`,
    undefined,
    { timeout: 30_000 },
  );
  return page;
}

const call = <T>(page: Page, fn: string, ...args: unknown[]) =>
  page.evaluate(`window.${fn}(${args.map((a) => JSON.stringify(a)).join(', ')})`) as Promise<T>;

/**
 * Element first render and time to interactive in Chromium, each against a plain `<button>` inserted the
 * same way in the same page (warm: module loaded, each kind inserted before), plus the first insertion in
 * a fresh page (cold).
 */
export async function firstRender(cdnDir: string): Promise<SectionResult> {
  const { server, url, others } = await servePage(cdnDir);
  // The full browser a customer has, not the tests' headless shell.
  const launch = chromiumLaunchOptions({ full: true });
  const browser = await chromium.launch(launch);
  try {
    const page = await openPage(browser, url);
    const warm = await call<Record<Kind, Sample[]>>(page, 'benchInsertions', KINDS, TOKENS, ROUNDS, WARMUP);
    await page.close();

    const cold = Object.fromEntries(KINDS.map((k) => [k, [] as Sample[]])) as Record<Kind, Sample[]>;
    for (let i = 0; i < COLD_PAGES; i++) {
      for (const kind of KINDS) {
        const fresh = await openPage(browser, url);
        cold[kind].push(await call<Sample>(fresh, 'benchFirstInsertion', kind, TOKENS[kind]));
        await fresh.close();
      }
    }

    // How much of <pay-by-mobile>'s cold render is the page's first currency format: timed alone, then
    // the element's first insertion right after it in the same fresh page.
    const currency: number[] = [];
    const payAfterCurrency: Sample[] = [];
    for (let i = 0; i < COLD_PAGES; i++) {
      const fresh = await openPage(browser, url);
      currency.push(await call<number>(fresh, 'benchFirstCurrencyFormat'));
      payAfterCurrency.push(await call<Sample>(fresh, 'benchFirstInsertion', 'pay-by-mobile', TOKENS['pay-by-mobile']));
      await fresh.close();
    }

    const med = (samples: Sample[], key: keyof Sample) => median(samples.map((s) => s[key]));
    const ms = (value: number) => `${fmt(value, 2)} ms`;
    const figures: Figure[] = [];
    for (const [label, samples] of [['warm', warm], ['cold', cold]] as const) {
      const button = { render: med(samples.button, 'render'), interactive: med(samples.button, 'interactive') };
      for (const kind of ELEMENTS) {
        for (const key of ['render', 'interactive'] as const) {
          const value = med(samples[kind], key);
          figures.push({
            figure: `<${kind}> ${key === 'render' ? 'first render (updateComplete)' : 'to interactive'}, ${label}, median of ${samples[kind].length}`,
            value: ms(value),
            baseline: `${ms(button[key])} (plain <button>)`,
            ratio: times(value / button[key], 1),
          });
        }
      }
    }
    return {
      title: 'Element first render (Chromium)',
      figures,
      method: [
        `Chromium ${browser.version()} (${launch.executablePath}, headless, the team's flags of test/support/chromium.mjs) on a loopback page that loads the CDN ES module built by the size section and bench/fixtures/measure-insert.js; cross-origin isolated, so \`performance.now()\` is fine-grained.`,
        'Each sample: create the element with a token (JWT-shaped; an element reads only its claims and calls no proxy before a person acts), read the clock, append it to the page, await its first `updateComplete` (first render), then check each task turn until its first control (`phone-input`, or `button` for checkout-button) exists, is enabled and takes focus (`focus()`, which forces style and layout) (to interactive); then remove it. Baseline: a plain `<button>` inserted the same way (its first render is the same microtask turn; interactive when it takes focus).',
        `Warm: ${ROUNDS} rounds over the four kinds in one page, order rotated every round, a frame between insertions; the first ${WARMUP} rounds discarded; medians of the rest. Cold: the first insertion in a fresh page (module loaded, nothing rendered before), ${COLD_PAGES} pages per kind; medians.`,
      ],
      notes: [
        `The first currency format of a fresh page (\`new Intl.NumberFormat(…, { style: 'currency' }).format()\`, what <pay-by-mobile> renders first) took ${ms(median(currency))} (median of ${COLD_PAGES} fresh pages): Chromium loads its ICU currency data then, once per page. In those pages, <pay-by-mobile> inserted right after that first format rendered in ${ms(med(payAfterCurrency, 'render'))} (cold, against ${ms(med(cold['pay-by-mobile'], 'render'))} without).`,
        `Requests other than the page, module, script and favicon during the section: ${others.length}${others.length ? ` (${others.slice(0, 3).join(', ')})` : ''}.`],
    };
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
