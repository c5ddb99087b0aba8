// "Slow phone": time to a usable first control on a phone network, each element page against the same form
// as plain HTML measured in the same run (issue 36). The pages are the docs' own snippets.
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { pino } from 'pino';
import { chromium, type Browser, type CDPSession } from 'playwright-core';
import { DEFAULT_LIMITS, type LimitName, type LimitPolicy } from '../../src/proxy/config.js';
import { createMerchantProxy } from '../../src/proxy/create-proxy.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { blocksOf } from '../../test/docs/markdown.js';
import { chromiumLaunchOptions } from '../../test/support/chromium.mjs';
import { checkFallbackAdopted, checkFallbackButton } from '../lib/fallback-check.js';
import type { Figure, SectionResult } from '../lib/report.js';
import { fmt, median, times } from '../lib/stats.js';

/** The two networks of issue 36: round trip, throughput each way, and how many times slower the CPU is. */
const PROFILES = {
  '3G': { latency: 300, down: 750, up: 250, cpu: 4 },
  '4G': { latency: 80, down: 9_000, up: 2_000, cpu: 2 },
} as const;
type Profile = keyof typeof PROFILES;

// BENCH_PHONE_SAMPLES: fewer, while working on the section itself.
const SAMPLES = Number(process.env['BENCH_PHONE_SAMPLES'] ?? 7);
/** An element page's time to a usable input, at most this many times the plain form's (issue 36). */
const GOAL = 1.35;
const VIEWPORT = { width: 360, height: 740 };
const CDN_IN_DOCS = '/assets/merchant-elements/cdn/';

/** Every page measured, by name: how it is described, and its markup (what goes in the page's `<main>`). */
interface PageSpec {
  label: string;
  tag: 'pay-by-mobile' | 'otp-verify' | 'checkout-button' | null;
  markup: string;
  /** The element holds the snippet's fallback input or form (proven to work and be adopted before the page is measured). */
  fallback: boolean;
  /** Measured for comparison, not held to the goal (a snippet no longer documented). */
  noGoal?: boolean;
}

/** The docs' snippets, as a reader copies them: docs/elements.md's loader snippets, the README's one-file one. */
export function pages(): Record<string, PageSpec> {
  const html = (doc: string) => blocksOf(doc).filter((b) => b.lang === 'html').map((b) => b.code);
  const loaderSnippets = html('docs/elements.md').filter((c) => c.includes(`${CDN_IN_DOCS}loader.js`));
  const english = loaderSnippets.find((c) => !c.includes('fr.js') && c.includes('<pay-by-mobile'));
  const french = loaderSnippets.find((c) => c.includes('fr.js'));
  const checkout = loaderSnippets.find((c) => c.includes('<checkout-button'));
  const oneFile = html('README.md').find((c) => c.includes('merchant-elements.iife.js'));
  if (!english?.includes('<input') || !french?.includes('<input') || !oneFile?.includes('<input') || !checkout?.includes('<form')) {
    throw new Error('the snippets measured (with their fallback input or form) are gone from docs/elements.md or README.md');
  }
  const served = (code: string) => code.replaceAll(CDN_IN_DOCS, '/cdn/');
  // The tag left empty: the snippet before the fallback (what a page written then still has).
  const empty = (code: string) => code.replace(/(<pay-by-mobile[^>]*>)[\s\S]*<\/pay-by-mobile>/, '$1</pay-by-mobile>');
  return {
    'pay-loader': { label: '<pay-by-mobile> through loader.js', tag: 'pay-by-mobile', markup: served(english), fallback: true },
    'pay-one-file': {
      label: '<pay-by-mobile>, the one-file classic script',
      tag: 'pay-by-mobile',
      // The README's proxy is another origin; here it is the page's own (the element's default mount).
      markup: oneFile.replace('src="/merchant-elements.iife.js"', 'src="/cdn/merchant-elements.iife.js"').replace(/ proxy="[^"]*"/, ''),
      fallback: true,
    },
    'otp-loader': {
      label: '<otp-verify> through loader.js',
      tag: 'otp-verify',
      markup: served(english).replaceAll('pay-by-mobile', 'otp-verify').replace('Mobile money number', 'Phone number'),
      fallback: true,
    },
    'pay-french': { label: '<pay-by-mobile> in French through loader.js', tag: 'pay-by-mobile', markup: served(french), fallback: true },
    'checkout-loader': { label: '<checkout-button> through loader.js', tag: 'checkout-button', markup: served(checkout), fallback: true },
    'pay-empty': { label: '<pay-by-mobile> through loader.js, the tag empty (no fallback: the snippet before it)', tag: 'pay-by-mobile', markup: empty(served(english)), fallback: false, noGoal: true },
    plain: {
      label: 'the same form as plain HTML (the floor)',
      tag: null,
      markup: `<form method="post" action="/pay"><p>GHS 12.50</p><label for="msisdn">Mobile money number</label>
<input id="msisdn" name="msisdn" type="tel" autocomplete="tel" inputmode="tel" required maxlength="20"><button>Continue</button></form>`,
      fallback: false,
    },
  };
}

const RAISED_LIMITS = Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((name) => [name, { points: 1e9, durationSec: 3_600 }])) as Record<LimitName, LimitPolicy>;

/**
 * The shop: its pages (each with a token minted for a new order, as a shop renders them), the CDN folder
 * built by the size section and the proxy mounted at /merchant-elements, one origin on loopback. Text is sent
 * gzipped (level 9), as a CDN sends it.
 */
export async function serveShop(cdnDir: string, specs: Record<string, PageSpec>) {
  // The sandbox, for the checkout button's proof only (a press must reach a hosted page): no timed load calls
  // the provider, a new order's `GET /order` is answered from the proxy's store.
  const sandbox = await startSandbox({});
  const proxy = createMerchantProxy({
    provider: {
      env: 'sandbox',
      messagingBaseUrl: sandbox.url,
      paymentBaseUrl: sandbox.paymentUrl,
      messaging: { apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
      payment: { username: 'test-user', password: 'test-password' },
      checkout: { apiKey: 'test-checkout-key' },
    },
    tokenSecret: 'slow-phone-bench-secret-of-32-bytes-or-more',
    payeeName: 'Bench Shop',
    limits: RAISED_LIMITS,
    logger: pino({ level: 'silent' }),
  });
  let orders = 0;
  const gzipped = new Map<string, Buffer>();
  const send = (res: express.Response, type: string, body: string | Buffer) =>
    res.set({ 'content-type': `${type}; charset=utf-8`, 'content-encoding': 'gzip', 'cache-control': 'no-cache' }).send(gzipSync(body, { level: 9 }));
  const app = express();
  app.use('/merchant-elements', proxy.router);
  app.get('/cdn/:file', async (req, res) => {
    const file = req.params.file;
    if (!/^[\w.-]+\.js$/.test(file)) return void res.status(404).end();
    const body = gzipped.get(file) ?? gzipSync(await readFile(`${cdnDir}/${file}`), { level: 9 });
    gzipped.set(file, body);
    res.set({ 'content-type': 'text/javascript; charset=utf-8', 'content-encoding': 'gzip', 'cache-control': 'no-cache' }).send(body);
  });
  app.get('/page/:name', async (req, res) => {
    const spec = specs[req.params.name];
    if (!spec) return void res.status(404).end();
    const ref = `PHONE-${++orders}`;
    const token = {
      'pay-by-mobile': () => proxy.tokens.payment({ amount: 12.5, referenceNo: ref, narration: `Order ${ref}` }),
      'otp-verify': () => proxy.tokens.otp({ purpose: 'sign-in' }),
      'checkout-button': () => proxy.tokens.checkout({ title: 'Bench Shop', reference: ref, amount: 12.5, description: 'Basket', returnUrl: 'http://127.0.0.1/back' }),
    }[spec.tag ?? 'pay-by-mobile'];
    const markup = spec.markup.replace('TOKEN-FROM-YOUR-SERVER', await token());
    send(res, 'text/html', `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Order ${ref}</title></head><body><main><h1>Order ${ref}</h1>
${markup}
</main></body></html>`);
  });
  app.get('/favicon.ico', (_req, res) => void res.status(204).end());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await proxy.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sandbox.close();
    },
  };
}

/** One load of one page on one profile. */
interface Sample {
  /** ms from the navigation's start to the first control usable (the fallback input, where the page has one). */
  usable: number;
  /**
   * Which control that was: the plain form's, the fallback in the tag (drawn from the page's HTML alone), or
   * the element's own (the element was defined before a frame showed its fallback).
   */
  first: 'page' | 'fallback' | 'own';
  /** ms to the element's own control usable (its upgrade and first render). */
  own: number;
  /** The layout's movement by then, summed (Layout Instability scores). */
  shift: number;
  /** How far (px) the element's own input lies below where its fallback was shown. */
  move: number;
  /** CPU the page's main thread spent by the first usable control (Chromium's TaskDuration, ms, throttled). */
  task: number;
  /** The same by the element's own control, of it script, and of that number formatting. */
  ownTask: number;
  script: number;
  intl: number;
  /** The page's requests started by the element's own control: [path, start, end] in ms from the navigation's start. */
  requests: [string, number, number][];
}

const PROBE = fileURLToPath(new URL('../fixtures/usable-probe.js', import.meta.url));

/** Chromium's TaskDuration now: the main thread's CPU since the page started, in ms. */
async function taskDuration(cdp: CDPSession): Promise<number> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  return (metrics.find((m) => m.name === 'TaskDuration')?.value ?? NaN) * 1000;
}

/** Loads `url` in a fresh context (cold cache, new connections) at phone size, throttled as `profile`. */
async function load(browser: Browser, url: string, profile: Profile): Promise<Sample> {
  const { latency, down, up, cpu } = PROFILES[profile];
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  try {
    await context.addInitScript({ path: PROBE });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    // Throughputs in bytes per second (kbit/s × 1000 / 8).
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency, downloadThroughput: (down * 1000) / 8, uploadThroughput: (up * 1000) / 8 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
    await cdp.send('Performance.enable');
    await page.goto(url, { waitUntil: 'commit', timeout: 60_000 });
    const usable = (await page.evaluate('window.benchUsable')) as number;
    const first = (await page.evaluate('window.benchFirst')) as Sample['first'];
    const task = await taskDuration(cdp);
    const own = (await page.evaluate('window.benchOwn')) as number;
    const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
    const metric = (name: string) => (metrics.find((m) => m.name === name)?.value ?? NaN) * 1000;
    const requests = (await page.evaluate(`[
      ['page', 0, performance.getEntriesByType('navigation')[0].responseEnd],
      ...performance.getEntriesByType('resource').map((r) => [new URL(r.name).pathname, r.startTime, r.responseEnd]),
    ]`)) as [string, number, number][];
    const intl = (await page.evaluate('window.benchIntlByOwn')) as number;
    // Two frames more: a shift the upgrade causes is reported after the frame that shows it.
    const shift = (await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(window.benchShift))))')) as number;
    const move = (await page.evaluate('window.benchMove')) as number;
    return { usable, first, own, shift, move, task, ownTask: metric('TaskDuration'), script: metric('ScriptDuration'), intl, requests: requests.filter(([, start]) => start <= own) };
  } finally {
    await context.close();
  }
}

/** `1 request in sequence`, `2 requests in sequence`. */
const inSequence = (n: number) => `${n} request${n === 1 ? '' : 's'} in sequence`;

/**
 * The requests in sequence on the way to a load's first usable control: how many times one of the requests
 * that control needed had to wait for an earlier one to end. A fallback, like the plain form, needs the page
 * alone (bench/lib/fallback-check.ts proves it usable with the scripts held back), whatever else had come by
 * the frame that first showed it; the element's own control needs the page and its scripts from /cdn/ (the
 * proxy's calls apart: the element draws its input without waiting for them).
 */
function hops({ requests, usable, first }: Sample): number {
  let depth = 0;
  let until = -1;
  const needed = requests.filter(([path, , end]) => (path === 'page' || (first === 'own' && path.startsWith('/cdn/'))) && end <= usable);
  for (const [, start, end] of needed.sort((a, b) => a[1] - b[1])) {
    if (start >= until) (depth += 1), (until = end);
    else until = Math.min(until, end);
  }
  return depth;
}

/**
 * Time to a usable first control on two emulated phone networks, every element page against the plain form
 * in the same run, `SAMPLES` cold loads of each, the pages taken in turn so that the machine's load falls on
 * all alike.
 */
export async function slowPhone(cdnDir: string, log: (line: string) => void): Promise<SectionResult> {
  const specs = pages();
  const shop = await serveShop(cdnDir, specs);
  const launch = chromiumLaunchOptions({ full: true });
  const browser = await chromium.launch(launch);
  const names = Object.keys(specs);
  const samples = new Map<string, Sample[]>();
  try {
    // A fallback counts as usable only where it is proven adopted, on the page as served.
    for (const name of names.filter((n) => specs[n]!.fallback)) {
      const tag = specs[name]!.tag;
      if (tag === 'checkout-button') await checkFallbackButton(browser, `${shop.url}/page/${name}`);
      else await checkFallbackAdopted(browser, `${shop.url}/page/${name}`, tag as 'pay-by-mobile' | 'otp-verify');
    }
    log('slow phone: every fallback typed into before its scripts came was kept, with its caret and focus, and sent; the checkout fallback pressed before them reached the hosted page, and after them the press was the element\'s');
    for (let round = 0; round < SAMPLES; round++) {
      for (const profile of Object.keys(PROFILES) as Profile[]) {
        for (let i = 0; i < names.length; i++) {
          const name = names[(i + round) % names.length]!;
          const key = `${profile} ${name}`;
          samples.set(key, [...(samples.get(key) ?? []), await load(browser, `${shop.url}/page/${name}`, profile)]);
        }
      }
      log(`slow phone: round ${round + 1} of ${SAMPLES}`);
    }
  } finally {
    await browser.close();
    await shop.close();
  }

  const figures: Figure[] = [];
  const notes: string[] = [];
  const ms = (v: number) => `${fmt(v)} ms`;
  for (const profile of Object.keys(PROFILES) as Profile[]) {
    const { latency, down, up, cpu } = PROFILES[profile];
    const of = (name: string) => samples.get(`${profile} ${name}`)!;
    const floor = median(of('plain').map((s) => s.usable));
    for (const name of names) {
      const runs = of(name);
      const spec = specs[name]!;
      const usable = median(runs.map((s) => s.usable));
      const own = median(runs.map((s) => s.own));
      const plain = name === 'plain';
      // When the last of the page's script files had come: no element can be drawn before.
      const scriptsIn = median(runs.map((s) => Math.max(0, ...s.requests.filter(([path]) => path.startsWith('/cdn/')).map(([, , end]) => end))));
      const range = `(${fmt(Math.min(...runs.map((s) => s.usable)))}–${fmt(Math.max(...runs.map((s) => s.usable)))})`;
      const upgrade = spec.fallback ? `; its fallback ${spec.tag === 'checkout-button' ? 'form' : 'input'} adopted, the element's own ${spec.tag === 'checkout-button' ? 'button' : 'input'} at ${ms(own)} (${times(own / floor)})` : '';
      figures.push({
        figure: `${profile} (${fmt(latency)} ms, ${fmt(down)}/${fmt(up)} kbit/s, CPU ${cpu}×): ${spec.label}, time to a usable ${spec.tag === 'checkout-button' ? 'button' : 'phone input'}, median of ${runs.length}`,
        value: `${ms(usable)} ${range}; ${inSequence(median(runs.map(hops)))}${spec.fallback ? `, the fallback the first usable in ${runs.filter((s) => s.first === 'fallback').length} of ${runs.length} loads` : ''}${plain ? '' : `; its scripts in by ${ms(scriptsIn)} (${times(scriptsIn / floor)})${upgrade}`}`,
        baseline: `${ms(floor)} (plain HTML form)`,
        ratio: times(usable / floor),
        ...(plain || spec.noGoal ? {} : { target: `≤ ${GOAL}×`, met: usable / floor <= GOAL }),
      });
      notes.push(
        `${profile}, ${spec.label}: main-thread CPU by the first usable control ${ms(median(runs.map((s) => s.task)))}, by the element's own ${ms(median(runs.map((s) => s.ownTask)))} (script ${ms(median(runs.map((s) => s.script)))}, of it number formatting ${ms(median(runs.map((s) => s.intl)))}), throttled ${cpu}×; layout shift by then ${median(runs.map((s) => s.shift)).toFixed(3)}${spec.fallback ? `, the element's input ${fmt(median(runs.map((s) => s.move)))} px below where its fallback was` : ''}; requests (the median load's): ${describe(runs)}.`,
      );
    }
  }
  return {
    title: 'Slow phone',
    figures,
    method: [
      `Chromium ${browser.version()} (${launch.executablePath}, the full browser, headless, the team's flags of test/support/chromium.mjs), one fresh browser context per load (empty cache, new connections), ${VIEWPORT.width}×${VIEWPORT.height} CSS px at 2× (isMobile, touch). Through CDP before the navigation: \`Network.emulateNetworkConditions\` (latency = the round trip each request waits, throughputs in kbit/s as named) with the cache disabled, and \`Emulation.setCPUThrottlingRate\`.`,
      'The pages are the docs\' snippets as written, served as a shop would: docs/elements.md\'s loader snippet with its `modulepreload` hints and the fallback label and input in the tag (for <otp-verify> the same with that tag, module and "Phone number"), its <checkout-button> snippet with its fallback form (the token in a hidden field, a submit button, posted to the proxy\'s /checkouts/start), its French one, the README\'s one-file classic script with the same fallback, and the loader snippet with the tag empty as pages written before the fallback have it (measured, held to no goal); each in the same page shell (`<main>`, a heading) with a token minted for a new order on every load. The floor is the same form as plain HTML (amount, label, phone input, Continue) in the same shell. One origin on loopback serves the pages, the CDN folder built by the size section (gzip -9 on the wire) and the proxy at /merchant-elements (`createMerchantProxy`, memory store; a new order\'s `GET /order` needs no provider).',
      'Time to a usable input: bench/fixtures/usable-probe.js, an init script, checks at every frame from the navigation\'s start whether the first control (the phone input; <checkout-button>\'s button) is there, visible, enabled and not read-only, and takes `performance.now()` then (ms since the navigation started). Before the element is defined that control is the fallback input in it; it counts only because, before any load is timed, bench/lib/fallback-check.ts proves on each such page as served (unthrottled) that digits typed into it with the keyboard while the scripts are held back are the element\'s once they come, with the caret where it was and the focus, that the next digits go on there, and that Enter sends the whole number in the element\'s request (the account lookup; the code request); the bench stops otherwise. <checkout-button>\'s fallback button counts only because the same file proves, on its page as served, that pressing it while the scripts are held back lands the browser on the sandbox\'s hosted checkout page, and that once the scripts have come the focus is on the element\'s own button and Enter there is the element\'s call (`POST /checkouts`), which lands on a hosted page too, the form never posted. The element\'s own input: the same probe on the element\'s shadow control (its upgrade and first render). CPU: `Performance.getMetrics` (TaskDuration read as soon as the first usable control is, and again after the element\'s own; ScriptDuration the latter time), and the time spent constructing `Intl.NumberFormat`s and formatting with them by the element\'s own control (the probe wraps both), where a fresh page\'s first number format loads Chromium\'s number data. Layout shift: the Layout Instability API\'s scores summed from the start until two frames after the element\'s own input; and, as that score does not see it (the fallback leaves the screen and a new input comes), how far the element\'s input lies below where the fallback input was last shown (px, top edges). Scripts in by: the median of the moment the last of the page\'s files from /cdn/ had come (Resource Timing\'s responseEnd), and its ratio to the plain form\'s time: what an element with no fallback could reach with no CPU at all. Requests in sequence: of the requests the first usable control needed (Resource Timing), how many had to wait for an earlier one to end, the median over the loads. A fallback needs the page alone, as the plain form does (the check above uses it with the scripts held back), even where its first frame came after the scripts had; the element\'s own control needs the page and the scripts from /cdn/ (the proxy\'s calls, listed in the notes, it does not wait for). Which control was the first usable is the probe\'s record of each load: the fallback, or the element\'s own where the element was defined before a frame had shown its fallback.',
      `${SAMPLES} loads of each page on each profile, the pages in turn (the order rotated each round); medians, and the ratio of medians to the plain form's on the same profile. The goal of issue 36: every element page (the documented snippets) at most ${GOAL}× the plain form's.`,
    ],
    notes,
  };
}

/** The requests of the load whose time is the median: path, and when it started and ended (ms). */
function describe(runs: Sample[]): string {
  const sorted = [...runs].sort((a, b) => a.usable - b.usable);
  const mid = sorted[Math.floor(sorted.length / 2)]!;
  return mid.requests.map(([path, start, end]) => `${path} ${fmt(start)}–${fmt(end)}`).join(', ') + `; usable at ${fmt(mid.usable)}, the element's own at ${fmt(mid.own)}`;
}
