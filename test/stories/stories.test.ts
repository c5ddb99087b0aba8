// Every story of the static Storybook, opened in Chromium as a designer would: the story's play function drives
// its element through the fake proxy, the element settles in the state the story shows, Storybook reports no
// error, axe finds no violation; each element's stories together reach every state its JSDoc declares; and
// each element's docs page shows its API from custom-elements.json and plays all its stories without error.
import { createRequire } from 'node:module';
import type { AxeResults, RuleObject } from 'axe-core';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeRules } from '../../stories/support/a11y.js';
import { declarations, startStaticStorybook, type Declared, type IndexEntry, type StaticStorybook } from './static-storybook.js';
import { heard, openStorybookPage, reported, storiesFinished } from './story-page.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TAGS = ['otp-verify', 'pay-by-mobile', 'checkout-button'];
/** Stories open at once (each waits on timers far more than it uses a core). */
const PAGES = 3;
/** The a11y addon's own run switched off (`a11y.manual`): axe runs once, in the test, with the same rules. */
const NO_ADDON_RUN = 'globals=a11y.manual:!true';

/** What a story showed once settled. */
interface Visit {
  id: string;
  state: string | null;
  problems: string[];
}

let storybook: StaticStorybook;
let declared: Map<string, Declared>;

beforeAll(async () => {
  storybook = await startStaticStorybook();
  declared = await declarations();
  console.info(`Storybook built in ${storybook.buildSeconds.toFixed(1)} s: ${storybook.stories.length} stories`);
}, 240_000);

afterAll(() => storybook?.close());

const storiesOf = (tag: string) => storybook.stories.filter((s) => s.title == `Elements/${tag}`);

/** Opens one story in a page of its own (its own sessionStorage; the popups it opens close with it). */
async function visit(context: BrowserContext, story: IndexEntry, tag: string): Promise<Visit> {
  const { page, problems } = await openStorybookPage(context, `${storybook.url}iframe.html?id=${story.id}&viewMode=story&${NO_ADDON_RUN}`);
  try {
    await storiesFinished(page, 1);
    problems.push(...reported(await heard(page)));
    const shown = await page.evaluate((tag) => {
      const el = document.querySelector<HTMLElement & { state?: string }>(`#storybook-root ${tag}`);
      return {
        overlay: document.body.classList.contains('sb-show-errordisplay'),
        state: el?.state ?? null,
        rendered: !!el?.shadowRoot?.childElementCount,
        custom: !!el?.state && el.matches(`:state(${el.state})`),
      };
    }, tag);
    if (shown.overlay) problems.push('Storybook shows its error overlay');
    if (!shown.rendered) problems.push(`no rendered <${tag}>`);
    else if (!shown.custom) problems.push(`state ${shown.state} is not the custom state :state(${shown.state})`);

    // Storybook's backgrounds addon fades the page to a story's background in 0.3 s: axe measuring contrast
    // mid-fade saw the dark theme's text on a still light page (an intermittent color-contrast violation).
    await page.evaluate(() =>
      Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => undefined))),
    );
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
    await Promise.all(page.context().pages().map((p) => p.close()));
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

/**
 * Opens a docs page: an element's plays every story side by side and shows the element's API, which must be
 * what custom-elements.json declares; returns the problems seen.
 */
async function visitDocs(docs: IndexEntry): Promise<string[]> {
  const tag = TAGS.find((t) => docs.title == `Elements/${t}`);
  const context = await storybook.browser.newContext();
  const { page, problems } = await openStorybookPage(context, `${storybook.url}iframe.html?id=${docs.id}&viewMode=docs&${NO_ADDON_RUN}`);
  try {
    // An element's first story is shown twice: at the top and in the list.
    await storiesFinished(page, tag ? storiesOf(tag).length + 1 : 0, true);
    problems.push(...reported(await heard(page)));
    if (!(await page.locator('h1').count())) problems.push('no title');
    if (tag) {
      const table = (await page.locator('.docblock-argstable').first().textContent()) ?? '';
      const missing = declared.get(tag)!.api.filter((name) => !table.includes(name));
      if (missing.length) problems.push(`the table of its API lacks ${missing.join(', ')}`);
    }
  } catch (e) {
    problems.push(String(e));
  } finally {
    await context.close();
  }
  return problems.map((p) => `${docs.id}: ${p}`);
}

describe('Storybook, built statically and opened in Chromium', () => {
  it.each(TAGS)(
    '<%s>: every story settles with its element rendered, no error and no axe violation; together they show every state',
    async (tag) => {
      const stories = storiesOf(tag);
      expect(stories.length).toBeGreaterThan(0);
      const visits = await visitAll(stories, tag);
      expect(visits.flatMap((v) => v.problems.map((p) => `${v.id}: ${p}`))).toEqual([]);
      const reached = new Set(visits.map((v) => v.state));
      const { states } = declared.get(tag)!;
      expect(states.length).toBeGreaterThan(0);
      expect(states.filter((s) => !reached.has(s)), 'declared states no story shows').toEqual([]);
    },
    120_000,
  );

  it("docs pages render; an element's shows its API from custom-elements.json and plays every story without error", async () => {
    expect(storybook.docs.map((d) => d.title).sort()).toEqual(['Elements/checkout-button', 'Elements/otp-verify', 'Elements/pay-by-mobile', 'Introduction']);
    const problems = (await Promise.all(storybook.docs.map(visitDocs))).flat();
    expect(problems).toEqual([]);
  }, 60_000);
});
