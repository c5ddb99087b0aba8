// The static Storybook as a designer opens it: built once with `npm run build-storybook` into a temporary
// folder, served as plain files on loopback, and opened story by story in the system's Chromium.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { chromium, type Browser } from 'playwright-core';

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
  /** Every story of the build (docs pages left out). */
  stories: IndexEntry[];
  /** Seconds the build took. */
  buildSeconds: number;
  browser: Browser;
  close(): Promise<void>;
}

/** Builds the Storybook (analyze first, as the script does), serves it and launches Chromium. */
export async function startStaticStorybook(): Promise<StaticStorybook> {
  const out = await mkdtemp(join(tmpdir(), 'storybook-static-'));
  const started = performance.now();
  // Into a folder of its own: two runs at once (or `npm run storybook`) never share an output.
  await promisify(execFile)('npm', ['run', 'build-storybook', '--', '--output-dir', out], {
    cwd: ROOT,
    env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const buildSeconds = (performance.now() - started) / 1000;
  const index = JSON.parse(await readFile(join(out, 'index.json'), 'utf8')) as { entries: Record<string, IndexEntry> };
  const stories = Object.values(index.entries).filter((e) => e.type == 'story');

  const server: Server = await new Promise((resolve) => {
    const s = express().use(express.static(out)).listen(0, '127.0.0.1', () => resolve(s));
  });
  const browser = await chromium.launch({
    // The system's Chromium: nothing here may download a browser.
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    stories,
    buildSeconds,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
      await rm(out, { recursive: true, force: true });
    },
  };
}

/** The custom states each element declares (`@cssstate`), by tag, from the manifest `npm run analyze` wrote. */
export async function declaredStates(): Promise<Map<string, string[]>> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'custom-elements.json'), 'utf8'));
  const states = new Map<string, string[]>();
  for (const mod of manifest.modules) {
    for (const d of mod.declarations ?? []) {
      if (d.tagName) states.set(d.tagName, (d.cssStates ?? []).map((s: { name: string }) => s.name));
    }
  }
  return states;
}
