// A page of the static Storybook that tells the test what Storybook said on its channel: which stories
// finished (their play functions included) and every error it reported, which a failed play function only
// logs (no error overlay); plus the page's own uncaught errors and a renderer crash.
//
// Waits are on Storybook's own events, never on a clock: a story is done when Storybook says it finished
// (its play function ran to success or failure, and every play function is bounded by its own waits), so a
// busy machine makes a run slower, not red. The test's own timeout stays the last resort against a hang.
import type { BrowserContext, Page } from 'playwright-core';
import {
  DOCS_RENDERED,
  PLAY_FUNCTION_THREW_EXCEPTION,
  SET_CURRENT_STORY,
  STORY_ERRORED,
  STORY_FINISHED,
  STORY_MISSING,
  STORY_THREW_EXCEPTION,
  UNHANDLED_ERRORS_WHILE_PLAYING,
} from 'storybook/internal/core-events';

/** What the page heard on Storybook's channel. */
export interface Heard {
  /** `STORY_FINISHED` of each story rendered: `status` is `success` or `error`. */
  finished: { storyId: string; status: string }[];
  /** Stories Storybook could not find. */
  missing: string[];
  docsRendered: boolean;
  /** Errors Storybook reported, one line each. */
  failures: string[];
}

interface EventNames {
  finished: string;
  missing: string;
  docs: string;
  failures: string[];
}

/** What the init script puts on `window`. */
interface Listening {
  heard: Heard;
  /** Resolves once `test(heard)` holds, checked again after every event heard. */
  untilHeard(test: (h: Heard) => boolean): Promise<void>;
  /** Forgets what was heard (before the next story). */
  forget(): void;
  __STORYBOOK_ADDONS_CHANNEL__: { emit(event: string, data: unknown): void };
}

/** Runs in the page before Storybook does: hooks the channel as Storybook sets it on `window`. */
function listen({ finished, missing, docs, failures }: EventNames) {
  const heard: Heard = { finished: [], missing: [], docsRendered: false, failures: [] };
  const waiting = new Set<() => void>();
  const changed = () => waiting.forEach((check) => check());
  let channel: { on(event: string, listener: (data: never) => void): void } | undefined;
  Object.assign(window, {
    heard,
    untilHeard: (test: (h: Heard) => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!test(heard)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      }),
    forget() {
      heard.finished.length = heard.missing.length = heard.failures.length = 0;
    },
  } satisfies Omit<Listening, '__STORYBOOK_ADDONS_CHANNEL__'>);
  Object.defineProperty(window, '__STORYBOOK_ADDONS_CHANNEL__', {
    configurable: true,
    get: () => channel,
    set(value) {
      channel = value;
      value.on(finished, (data: Heard['finished'][number]) => (heard.finished.push(data), changed()));
      value.on(missing, (id: string) => (heard.missing.push(id), changed()));
      value.on(docs, () => ((heard.docsRendered = true), changed()));
      // An error's first line: the rest is testing-library's dump of the whole document.
      const say = (data: unknown) => (data as Error | undefined)?.message?.split('\n')[0] ?? JSON.stringify(data).slice(0, 400);
      for (const name of failures) value.on(name, (data: unknown) => heard.failures.push(`${name}: ${say(data)}`));
    },
  });
}

/** A page on `url`, its channel listened to; `problems` collects uncaught errors and a crash. */
export async function openStorybookPage(context: BrowserContext, url: string) {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('crash', () => problems.push('the page crashed'));
  await page.addInitScript(listen, {
    finished: STORY_FINISHED,
    missing: STORY_MISSING,
    docs: DOCS_RENDERED,
    failures: [PLAY_FUNCTION_THREW_EXCEPTION, STORY_THREW_EXCEPTION, STORY_ERRORED, UNHANDLED_ERRORS_WHILE_PLAYING],
  } satisfies EventNames);
  await page.goto(url);
  return { page, problems };
}

/** What the page heard so far. */
export const heard = (page: Page): Promise<Heard> => page.evaluate(() => (window as unknown as Listening).heard);

/** Waits until `count` stories finished (and, for a docs page, the page rendered). */
export async function storiesFinished(page: Page, count: number, docs = false) {
  await page.evaluate(
    ({ count, docs }) =>
      (window as unknown as Listening).untilHeard((h) => h.finished.length >= count && (!docs || h.docsRendered)),
    { count, docs },
  );
}

/** Waits until story `id` finished or was found missing (a missing story is reported by `reported`). */
export async function storyFinished(page: Page, id: string) {
  await page.evaluate(
    (id) => (window as unknown as Listening).untilHeard((h) => h.missing.includes(id) || h.finished.some((f) => f.storyId == id)),
    id,
  );
}

/**
 * Shows story `id` in a page already showing another, as Storybook's own sidebar does (the preview is told
 * over its channel; no reload, so the bundle is parsed once per page); what was heard before is forgotten.
 */
export async function switchStory(page: Page, id: string) {
  await page.evaluate(
    ({ id, event }) => {
      const w = window as unknown as Listening;
      w.forget();
      w.__STORYBOOK_ADDONS_CHANNEL__.emit(event, { storyId: id, viewMode: 'story' });
    },
    { id, event: SET_CURRENT_STORY },
  );
  await storyFinished(page, id);
}

/** Problems Storybook reported: errors heard, stories missing and stories that finished with an error. */
export function reported(h: Heard): string[] {
  return [
    ...h.failures,
    ...h.missing.map((id) => `${id} is missing`),
    ...h.finished.filter((f) => f.status != 'success').map((f) => `${f.storyId} finished with ${f.status}`),
  ];
}
