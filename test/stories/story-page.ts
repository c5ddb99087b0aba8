// A page of the static Storybook that tells the test what Storybook said on its channel: which stories
// finished (their play functions included) and every error it reported, which a failed play function only
// logs (no error overlay); plus the page's own uncaught errors and a renderer crash.
import type { BrowserContext, Page } from 'playwright-core';
import {
  DOCS_RENDERED,
  PLAY_FUNCTION_THREW_EXCEPTION,
  STORY_ERRORED,
  STORY_FINISHED,
  STORY_THREW_EXCEPTION,
  UNHANDLED_ERRORS_WHILE_PLAYING,
} from 'storybook/internal/core-events';

/** What the page heard on Storybook's channel. */
export interface Heard {
  /** `STORY_FINISHED` of each story rendered: `status` is `success` or `error`. */
  finished: { storyId: string; status: string }[];
  docsRendered: boolean;
  /** Errors Storybook reported, one line each. */
  failures: string[];
}

interface EventNames {
  finished: string;
  docs: string;
  failures: string[];
}

/** Runs in the page before Storybook does: hooks the channel as Storybook sets it on `window`. */
function listen({ finished, docs, failures }: EventNames) {
  const heard: Heard = { finished: [], docsRendered: false, failures: [] };
  let channel: { on(event: string, listener: (data: never) => void): void } | undefined;
  Object.assign(window, { heard });
  Object.defineProperty(window, '__STORYBOOK_ADDONS_CHANNEL__', {
    configurable: true,
    get: () => channel,
    set(value) {
      channel = value;
      value.on(finished, (data: Heard['finished'][number]) => heard.finished.push(data));
      value.on(docs, () => (heard.docsRendered = true));
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
    docs: DOCS_RENDERED,
    failures: [PLAY_FUNCTION_THREW_EXCEPTION, STORY_THREW_EXCEPTION, STORY_ERRORED, UNHANDLED_ERRORS_WHILE_PLAYING],
  } satisfies EventNames);
  await page.goto(url);
  return { page, problems };
}

/** What the page heard so far. */
export const heard = (page: Page): Promise<Heard> => page.evaluate(() => (window as unknown as { heard: Heard }).heard);

/** Waits until `count` stories finished (and, for a docs page, the page rendered). */
export async function storiesFinished(page: Page, count: number, docs = false) {
  await page.waitForFunction(
    ({ count, docs }) => {
      const { heard } = window as unknown as { heard: Heard };
      return heard.finished.length >= count && (!docs || heard.docsRendered);
    },
    { count, docs },
    { timeout: 30_000 },
  );
}

/** Problems Storybook reported: errors heard and stories that finished with an error. */
export function reported(h: Heard): string[] {
  return [...h.failures, ...h.finished.filter((f) => f.status != 'success').map((f) => `${f.storyId} finished with ${f.status}`)];
}
