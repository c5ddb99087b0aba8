// The static Storybook as a designer opens it: built once with `npm run build-storybook` into a temporary
// folder, served as plain files on loopback, and opened story by story in the system's Chromium.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { builtOnce } from '../support/built-once.js';
import { chromiumLaunchOptions } from '../support/chromium.mjs';

/** The repository's root. */
export const ROOT = new URL('../../', import.meta.url).pathname;

/** One entry of Storybook's index.json. */
export interface IndexEntry {
  id: string;
  title: string;
  name: string;
  type: 'story' | 'docs';
}

export interface StaticStorybook {
  /** Base URL of the served build (`http://127.0.0.1:PORT/`). */
  url: string;
  /** Every story of the build. */
  stories: IndexEntry[];
  /** Every docs page of the build (each element's, the introduction). */
  docs: IndexEntry[];
  /** Seconds the build took (or this file waited for another's). */
  buildSeconds: number;
  browser: Browser;
  /**
   * A context as Storybook's own test runner opens one: its user agent names `StorybookTestRunner`, so a
   * story that finished pauses its animations at their end instead of Storybook waiting up to 5 s for them
   * (and the backgrounds addon's fade never leaves a page half-way between two colours for axe).
   */
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Builds the Storybook (analyze first, as the script does) once a run for the files that open it (this one's
 * and the docs site's), serves it and launches Chromium.
 */
export async function startStaticStorybook(): Promise<StaticStorybook> {
  const started = performance.now();
  // Into the run's folder: two runs at once (or `npm run storybook`) never share an output.
  const out = await builtOnce('storybook-static', (folder) =>
    promisify(execFile)('npm', ['run', 'build-storybook', '--', '--output-dir', folder], {
      cwd: ROOT,
      env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: '1' },
      maxBuffer: 64 * 1024 * 1024,
    }).then(() => undefined),
  );
  const buildSeconds = (performance.now() - started) / 1000;
  const index = JSON.parse(await readFile(join(out, 'index.json'), 'utf8')) as { entries: Record<string, IndexEntry> };
  const entries = Object.values(index.entries);

  const server: Server = await new Promise((resolve) => {
    // Cached for the run: pages of one context revalidate nothing (the build never changes while served).
    const s = express().use(express.static(out, { maxAge: '1h', immutable: true })).listen(0, '127.0.0.1', () => resolve(s));
  });
  const browser = await chromium.launch({
    // The system's Chromium: nothing here may download a browser.
    ...chromiumLaunchOptions(),
  });
  const probe = await browser.newPage();
  const userAgent = `${await probe.evaluate(() => navigator.userAgent)} StorybookTestRunner`;
  await probe.close();
  return {
    newContext: () => browser.newContext({ userAgent }),
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    stories: entries.filter((e) => e.type == 'story'),
    docs: entries.filter((e) => e.type == 'docs'),
    buildSeconds,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What custom-elements.json (written by `npm run analyze`) says of an element. */
export interface Declared {
  /** Custom states (`@cssstate`). */
  states: string[];
  /** Names its docs page must show: attributes, events, CSS properties and parts. */
  api: string[];
}

/** Each element's declaration in the manifest, by tag. */
export async function declarations(): Promise<Map<string, Declared>> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'custom-elements.json'), 'utf8'));
  const byTag = new Map<string, Declared>();
  const names = (list?: { name: string }[]) => (list ?? []).map((x) => x.name);
  for (const mod of manifest.modules) {
    for (const d of mod.declarations ?? []) {
      if (!d.tagName) continue;
      const api = [...names(d.attributes), ...names(d.events), ...names(d.cssProperties), ...names(d.cssParts)];
      byTag.set(d.tagName, { states: names(d.cssStates), api });
    }
  }
  return byTag;
}
