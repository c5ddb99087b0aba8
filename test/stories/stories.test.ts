// Every story of the static Storybook, opened in Chromium as a designer would: the story's play function drives
// its element through the fake proxy, the element settles in the state the story shows, Storybook shows no
// error, axe finds no violation; and each element's stories together reach every state its JSDoc declares.
import { createRequire } from 'node:module';
import type { AxeResults, RuleObject } from 'axe-core';
import {
  PLAY_FUNCTION_THREW_EXCEPTION,
  STORY_ERRORED,
  STORY_FINISHED,
  STORY_THREW_EXCEPTION,
  UNHANDLED_ERRORS_WHILE_PLAYING,
} from 'storybook/internal/core-events';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeRules } from '../../stories/support/a11y.js';
import { declaredStates, startStaticStorybook, type IndexEntry, type StaticStorybook } from './static-storybook.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TAGS = ['otp-verify', 'pay-by-mobile', 'checkout-button'];
/** Stories open at once (each waits on timers far more than it uses a core). */
const PAGES = 3;

/** What a story showed once settled. */
interface Visit {
  id: string;
  state: string | null;
  problems: string[];
}

let storybook: StaticStorybook;
let states: Map<string, string[]>;

beforeAll(async () => {
  storybook = await startStaticStorybook();
  states = await declaredStates();
  console.info(`Storybook built in ${storybook.buildSeconds.toFixed(1)} s: ${storybook.stories.length} stories`);
}, 240_000);

afterAll(() => storybook?.close());

/** What the page heard on Storybook's channel. */
interface Heard {
  finished: { status: string } | null;
  failures: string[];
}

/**
 * Runs in the page before Storybook does: records when the story finished (its play function included) and
 * every error Storybook reports on its channel, which a failed play function only logs.
 */
function listen({ finished, failures }: { finished: string; failures: string[] }) {
  const heard: Heard = { finished: null, failures: [] };
  let channel: { on(event: string, listener: (data: unknown) => void): void } | undefined;
  Object.assign(window, { heard });
  Object.defineProperty(window, '__STORYBOOK_ADDONS_CHANNEL__', {
    configurable: true,
    get: () => channel,
    set(value) {
      channel = value;
      value.on(finished, (data: Heard['finished']) => (heard.finished = data));
      for (const name of failures) {
        // An error's first line: the rest is testing-library's dump of the whole document.
        const say = (data: unknown) => (data as Error | undefined)?.message?.split('\n')[0] ?? JSON.stringify(data).slice(0, 400);
        value.on(name, (data: unknown) => heard.failures.push(`${name}: ${say(data)}`));
      }
    },
  });
}

/** Opens one story in a page of its own (its own sessionStorage; the popups it opens close with it). */
async function visit(context: BrowserContext, story: IndexEntry, tag: string): Promise<Visit> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  await page.addInitScript(listen, {
    finished: STORY_FINISHED,
    failures: [PLAY_FUNCTION_THREW_EXCEPTION, STORY_THREW_EXCEPTION, STORY_ERRORED, UNHANDLED_ERRORS_WHILE_PLAYING],
  });
  try {
    // The a11y addon's own run is switched off (`a11y.manual`): axe runs once, below, with the same rules.
    await page.goto(`${storybook.url}iframe.html?id=${story.id}&viewMode=story&globals=a11y.manual:!true`);
    await page.waitForFunction(() => (window as unknown as { heard: Heard }).heard.finished, null, { timeout: 20_000 });
    const shown = await page.evaluate((tag) => {
      const el = document.querySelector<HTMLElement & { state?: string }>(`#storybook-root ${tag}`);
      return {
        heard: (window as unknown as { heard: Heard }).heard,
        overlay: document.body.classList.contains('sb-show-errordisplay'),
        state: el?.state ?? null,
        rendered: !!el?.shadowRoot?.childElementCount,
        custom: !!el?.state && el.matches(`:state(${el.state})`),
      };
    }, tag);
    problems.push(...shown.heard.failures);
    if (shown.heard.finished?.status != 'success') problems.push(`story finished with ${shown.heard.finished?.status}`);
    if (shown.overlay) problems.push('Storybook shows its error overlay');
    if (!shown.rendered) problems.push(`no rendered <${tag}>`);
    else if (!shown.custom) problems.push(`state ${shown.state} is not the custom state :state(${shown.state})`);

    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async (rules: Record<string, RuleObject[string]>) => {
      const results: AxeResults = await (window as any).axe.run('#storybook-root', { rules, resultTypes: ['violations'] });
      return results.violations.map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(' > ')).join(', ')}`);
    }, axeRules);
    problems.push(...violations.map((v) => `axe: ${v}`));
    return { id: story.id, state: shown.state, problems };
  } catch (e) {
    return { id: story.id, state: null, problems: [...problems, String(e)] };
  } finally {
    await Promise.all(context.pages().map((p) => p.close()));
  }
}

/** Runs `visit` over `stories`, `PAGES` at a time. */
async function visitAll(stories: IndexEntry[], tag: string): Promise<Visit[]> {
  const queue = [...stories];
  const visits: Visit[] = [];
  // A context per worker: its pages share the HTTP cache, so Storybook's bundle is read once.
  const worker = async () => {
    const context = await storybook.browser.newContext();
    for (let story; (story = queue.shift()); ) visits.push(await visit(context, story, tag));
    await context.close();
  };
  await Promise.all(Array.from({ length: PAGES }, worker));
  return visits;
}

describe('Storybook, built statically and opened in Chromium', () => {
  it.each(TAGS)(
    '<%s>: every story settles with its element rendered, no error and no axe violation; together they show every state',
    async (tag) => {
      const stories = storybook.stories.filter((s) => s.title == `Elements/${tag}`);
      expect(stories.length).toBeGreaterThan(0);
      const visits = await visitAll(stories, tag);
      expect(visits.flatMap((v) => v.problems.map((p) => `${v.id}: ${p}`))).toEqual([]);
      const reached = new Set(visits.map((v) => v.state));
      const declared = states.get(tag) ?? [];
      expect(declared.length).toBeGreaterThan(0);
      expect(declared.filter((s) => !reached.has(s)), 'declared states no story shows').toEqual([]);
    },
    120_000,
  );
});
