// Every story of the static Storybook, opened in Chromium as a designer would: the story's play function drives
// its element through the fake proxy, the element settles in the state the story shows, Storybook reports no
// error, axe finds no violation; each element's stories together reach every state its JSDoc declares; and
// each element's docs page shows its API from custom-elements.json and plays all its stories without error.
import { createRequire } from 'node:module';
import type { AxeResults, RuleObject } from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeRules } from '../../stories/support/a11y.js';
import { declarations, startStaticStorybook, type Declared, type IndexEntry, type StaticStorybook } from './static-storybook.js';
import { heard, openStorybookPage, reported, storiesFinished, storyFinished, switchStory } from './story-page.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TAGS = ['otp-verify', 'pay-by-mobile', 'checkout-button'];
/** Viewers at once, each showing one story after another (a story waits on timers far more than it uses a core). */
const PAGES = 3;
/** The a11y addon's own run switched off (`a11y.manual`): axe runs once, in the test, with the same rules. */
const NO_ADDON_RUN = 'globals=a11y.manual:!true';

/** What a story showed once settled. */
interface Visit {
  id: string;
  tag: string;
  state: string | null;
  problems: string[];
}

/** A page showing one story after another, and what went wrong in it since the story it shows began. */
interface Viewer {
  page: Page;
  problems: string[];
}

let storybook: StaticStorybook;
let declared: Map<string, Declared>;
/** Every story's visit, started once Storybook is up; each element's test reads its own. */
let visits: Promise<Visit[]>;
/** The problems of every docs page, visited one at a time beside the stories. */
let docsProblems: Promise<string[]>;

beforeAll(async () => {
  storybook = await startStaticStorybook();
  declared = await declarations();
  console.info(`Storybook built in ${storybook.buildSeconds.toFixed(1)} s: ${storybook.stories.length} stories`);
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  visits = visitAll(storybook.stories).finally(() => console.info(`${storybook.stories.length} stories visited in ${seconds()} s`));
  // A docs page plays all of an element's stories at once and keeps a core busy while it renders, where the
  // story viewers mostly wait on their stories' timers: the docs pages go one by one, beside the viewers.
  docsProblems = (async () => {
    const problems: string[] = [];
    for (const docs of elementDocs()) problems.push(...(await visitDocs(docs)));
    console.info(`${elementDocs().length} docs pages visited in ${seconds()} s`);
    return problems;
  })();
}, 240_000);

afterAll(() => storybook?.close());

/** The docs pages of the elements and the introduction; the guides' pages are test/docs/site.test.ts's. */
const elementDocs = () => storybook.docs.filter((d) => !d.title.startsWith('Guides/'));
const storiesOf = (tag: string) => storybook.stories.filter((s) => s.title == `Elements/${tag}`);
const tagOf = (story: IndexEntry) => story.title.replace(/^Elements\//, '');

/**
 * Shows one story in the viewer (opened on it, or switched to it as Storybook's sidebar does), waits for it to
 * finish, then checks what it shows. A story's token is its own, so nothing of the story before (its
 * sessionStorage entry, its fake proxy) is seen by the next; the popups a story opens are closed after it.
 */
async function visit(context: BrowserContext, viewer: Viewer | undefined, story: IndexEntry): Promise<[Visit, Viewer | undefined]> {
  const tag = tagOf(story);
  let page: Page | undefined = viewer?.page;
  const problems: string[] = [];
  try {
    if (viewer) {
      viewer.problems.length = 0;
      await switchStory(viewer.page, story.id);
    } else {
      viewer = await openStorybookPage(context, `${storybook.url}iframe.html?id=${story.id}&viewMode=story&${NO_ADDON_RUN}`);
      page = viewer.page;
      await storyFinished(viewer.page, story.id);
    }
    problems.push(...reported(await heard(viewer.page)));
    const shown = await viewer.page.evaluate((tag) => {
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

    // The context runs as Storybook's test runner, so transitions are off once a story finished; any still
    // running (none expected) are waited for, so that axe never measures contrast mid-fade.
    await viewer.page.evaluate(() =>
      Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => undefined))),
    );
    if (!(await viewer.page.evaluate(() => 'axe' in window))) await viewer.page.addScriptTag({ path: AXE });
    const violations = await viewer.page.evaluate(async (rules: Record<string, RuleObject[string]>) => {
      const results: AxeResults = await (window as any).axe.run('#storybook-root', { rules, resultTypes: ['violations'] });
      return results.violations.map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(' > ')).join(', ')}`);
    }, axeRules);
    problems.push(...violations.map((v) => `axe: ${v}`));
    problems.push(...viewer.problems);
    return [{ id: story.id, tag, state: shown.state, problems }, viewer];
  } catch (e) {
    // The page may be broken (a crash): the next story gets a fresh one.
    await page?.close();
    return [{ id: story.id, tag, state: null, problems: [...problems, ...(viewer?.problems ?? []), String(e)] }, undefined];
  } finally {
    await Promise.all(context.pages().filter((p) => p != page).map((p) => p.close()));
  }
}

/** Visits `stories`, `PAGES` viewers at a time. */
async function visitAll(stories: IndexEntry[]): Promise<Visit[]> {
  const queue = [...stories];
  const done: Visit[] = [];
  // A context per viewer: the popups a story opens are the viewer's only other pages.
  const worker = async () => {
    const context = await storybook.newContext();
    let viewer: Viewer | undefined;
    try {
      for (let story; (story = queue.shift()); ) {
        let seen: Visit;
        [seen, viewer] = await visit(context, viewer, story);
        done.push(seen);
      }
    } finally {
      await context.close();
    }
  };
  await Promise.all(Array.from({ length: PAGES }, worker));
  return done;
}

/**
 * Opens a docs page: an element's plays every story side by side and shows the element's API, which must be
 * what custom-elements.json declares; returns the problems seen.
 */
async function visitDocs(docs: IndexEntry): Promise<string[]> {
  const tag = TAGS.find((t) => docs.title == `Elements/${t}`);
  const context = await storybook.newContext();
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
      expect(storiesOf(tag).length).toBeGreaterThan(0);
      const mine = (await visits).filter((v) => v.tag == tag);
      expect(mine.map((v) => v.id).sort()).toEqual(storiesOf(tag).map((s) => s.id).sort());
      expect(mine.flatMap((v) => v.problems.map((p) => `${v.id}: ${p}`))).toEqual([]);
      const reached = new Set(mine.map((v) => v.state));
      const { states } = declared.get(tag)!;
      expect(states.length).toBeGreaterThan(0);
      expect(states.filter((s) => !reached.has(s)), 'declared states no story shows').toEqual([]);
    },
    180_000,
  );

  it("docs pages render; an element's shows its API from custom-elements.json and plays every story without error", async () => {
    expect(elementDocs().map((d) => d.title).sort()).toEqual(['Elements/checkout-button', 'Elements/otp-verify', 'Elements/pay-by-mobile', 'Introduction']);
    expect(await docsProblems).toEqual([]);
  }, 120_000);
});
