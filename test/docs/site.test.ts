// The docs site (Storybook, built statically as `npm run build-storybook` does, served on loopback) opened
// in Chromium: every page of the README and docs/ has its page under Guides and renders its title; every
// link on it leads somewhere the site has (another page of the site, a heading of the same page, a picture
// it serves, or outside), no picture is broken, and Storybook reports no error. The elements' pages (their
// reference from custom-elements.json, their stories live) are test/stories/stories.test.ts's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { SET_CURRENT_STORY } from 'storybook/internal/core-events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_URL, sitePages } from '../../scripts/docs/site.js';
import { startStaticStorybook, type StaticStorybook } from '../stories/static-storybook.js';
import { heard, openStorybookPage, reported, storiesFinished } from '../stories/story-page.js';
import { DOCS, ROOT } from './markdown.js';

let storybook: StaticStorybook;

describe('the docs site', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    storybook = await startStaticStorybook();
    console.info(`Storybook built in ${storybook.buildSeconds.toFixed(1)} s`);
  }, 240_000);
  afterAll(() => storybook?.close());

  it('links its OpenAPI page to the document it serves', async () => {
    const context = await storybook.newContext();
    try {
      const viewer = await show(context, undefined, (await sitePages()).find((p) => p.file === 'docs/openapi.md')!.id);
      const link = viewer.page.locator('#storybook-docs a', { hasText: 'Download openapi.json' });
      expect(await link.getAttribute('href')).toBe(OPENAPI_URL);
      expect(await viewer.page.locator('#storybook-docs').getByRole('cell', { name: 'mintPaymentToken' }).count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('has a page under Guides for the README and every page of docs/', async () => {
    const pages = await sitePages();
    expect(pages.map((p) => p.file).sort()).toEqual([...DOCS].sort());
    const ids = new Set(storybook.docs.map((d) => d.id));
    expect(pages.filter((p) => !ids.has(p.id)).map((p) => p.file)).toEqual([]);
    // The ids the pages link by are the ones the build wrote.
    const written = JSON.parse(readFileSync(join(ROOT, '.storybook/guides/pages.json'), 'utf8')) as Record<string, string>;
    expect(written).toEqual(Object.fromEntries(pages.map((p) => [p.file, p.id])));
  });

  it('renders every page with its title, no broken link or picture, no error', async () => {
    const ids = new Set(storybook.docs.map((d) => d.id));
    const queue = await sitePages();
    const problems: string[] = [];
    /** Shows pages one after another in one tab, as the sidebar does; three of these run at once. */
    const worker = async () => {
      const context = await storybook.newContext();
      let viewer: Viewer | undefined;
      try {
        for (let next; (next = queue.shift()); ) {
          viewer = await show(context, viewer, next.id);
          problems.push(...(await check(viewer, next.file, ids)));
        }
      } finally {
        await context.close();
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    expect(problems).toEqual([]);
  });
});

/** A tab of the site and what went wrong in it since the page it shows began. */
type Viewer = Awaited<ReturnType<typeof openStorybookPage>>;

/** Shows docs page `id`: in a new tab, or switched to in `viewer` over Storybook's channel (no reload). */
async function show(context: BrowserContext, viewer: Viewer | undefined, id: string): Promise<Viewer> {
  if (!viewer) {
    const opened = await openStorybookPage(context, `${storybook.url}iframe.html?id=${id}&viewMode=docs`);
    await storiesFinished(opened.page, 0, true);
    return opened;
  }
  viewer.problems.length = 0;
  await viewer.page.evaluate(
    ({ id, event }) => {
      const w = window as unknown as { heard: { docsRendered: boolean }; forget(): void; __STORYBOOK_ADDONS_CHANNEL__: { emit(e: string, d: unknown): void } };
      w.forget();
      w.heard.docsRendered = false;
      w.__STORYBOOK_ADDONS_CHANNEL__.emit(event, { storyId: id, viewMode: 'docs' });
    },
    { id, event: SET_CURRENT_STORY },
  );
  await storiesFinished(viewer.page, 0, true);
  return viewer;
}

/** What is wrong with the page `viewer` shows, the site's page of `file`. */
async function check(viewer: Viewer, file: string, ids: Set<string>): Promise<string[]> {
  const problems: string[] = [];
  const where = (what: string) => `${file}: ${what}`;
  const { page } = viewer;
  try {
    const seen = await page.evaluate(async () => {
      const root = document.querySelector('#storybook-docs') ?? document.body;
      const pictures = [...root.querySelectorAll('img')];
      const settled = (img: HTMLImageElement) =>
        new Promise((done) => {
          img.addEventListener('load', done);
          img.addEventListener('error', done);
        });
      await Promise.all(pictures.map((img) => (img.complete ? null : settled(img))));
      return {
        title: root.querySelector('h1')?.textContent ?? '',
        links: [...root.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')!),
        ids: [...root.querySelectorAll('[id]')].map((e) => e.id),
        images: pictures.map((img) => ({ src: img.getAttribute('src'), ok: img.complete && img.naturalWidth > 0 })),
      };
    });
    // The page's own first heading: the tab shows this page, not the one before.
    const heading = /^# (.+)$/m.exec(readFileSync(join(ROOT, file), 'utf8'))![1]!.replace(/[`*]/g, '');
    if (seen.title !== heading) problems.push(where(`shows “${seen.title}”, not its title “${heading}”`));
    for (const href of seen.links) {
      if (/^https?:\/\//.test(href)) continue;
      const path = /^\?path=\/docs\/([^#&]+)/.exec(href);
      if (path) {
        if (!ids.has(path[1]!)) problems.push(where(`${href} is no page of the site`));
      } else if (href.startsWith('#')) {
        if (!seen.ids.includes(decodeURIComponent(href.slice(1)))) problems.push(where(`${href} is no heading of the page`));
      } else if (href === OPENAPI_URL) {
        // A file the site serves: the OpenAPI document, which must be the one the server package ships.
        const served = await fetch(new URL(href, storybook.url));
        const shipped = readFileSync(join(ROOT, 'packages/merchant-elements-server/openapi.json'), 'utf8');
        if (!served.ok || (await served.text()) !== shipped) problems.push(where(`${href} is not the shipped OpenAPI document`));
      } else problems.push(where(`${href} leads nowhere in the site`));
    }
    for (const image of seen.images) if (!image.ok) problems.push(where(`picture ${image.src} did not load`));
    problems.push(...[...viewer.problems, ...reported(await heard(page))].map(where));
  } catch (err) {
    problems.push(where(String(err)));
  }
  return problems;
}
