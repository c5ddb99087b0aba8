// The tarballs as they would be published: a second build of the same commit packs the same bytes as the
// suite's, for both packages; a page-only site's install of the browser package stays within its budget; and
// the install figures of docs/benchmarks.md are the ones measured here.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, inject, it } from 'vitest';
import { benchmarksBlock, BROWSER_INSTALL_BUDGET, installFigures, installsBlock, pack } from '../../scripts/measure-install.js';
import { buildPackage } from '../build/built-package.js';

const run = promisify(execFile);
const sha256 = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex');

/** The files of two tarballs whose contents differ, or that only one holds: what to look at when the bytes differ. */
async function differingFiles(a: string, b: string): Promise<string[]> {
  const unpack = async (file: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'merchant-elements-unpacked-'));
    await run('tar', ['-xzf', file, '-C', dir]);
    const files = new Map<string, string>();
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.set(join(entry.parentPath, entry.name).slice(dir.length + 1), await sha256(join(entry.parentPath, entry.name)));
    }
    await rm(dir, { recursive: true, force: true });
    return files;
  };
  const [left, right] = await Promise.all([unpack(a), unpack(b)]);
  return [...new Set([...left.keys(), ...right.keys()])].filter((f) => left.get(f) !== right.get(f)).sort();
}

it('npm pack of a second build of the same commit gives the same bytes, for both packages', async () => {
  const first = inject('consumers').tarballs;
  const second = await buildPackage();
  const out = await mkdtemp(join(tmpdir(), 'merchant-elements-second-'));
  try {
    expect(second.build.code, second.build.stderr).toBe(0);
    await mkdir(out, { recursive: true });
    const again = { browser: await pack(second.dir, out), server: await pack(second.serverDir, out) };
    for (const which of ['browser', 'server'] as const) {
      if ((await sha256(first[which])) !== (await sha256(again[which]))) {
        expect(await differingFiles(first[which], again[which]), `${which} package: files that differ`).toEqual([]);
        // Same files, same contents: what differs is the archive itself (order, times, modes).
        expect.fail(`${which} package: the tarballs differ, their files do not`);
      }
    }
  } finally {
    await second.remove();
    await rm(out, { recursive: true, force: true });
  }
});

it('a page-only site installs the browser package in at most 5 MB of files, and docs/benchmarks.md gives the figures measured here', async () => {
  const figures = await installFigures(inject('consumers').tarballs);
  const { bytes, packages } = figures.browser;
  console.info(`merchant-elements alone: ${packages} packages, ${(bytes / 1e6).toFixed(2)} MB of files (budget ${BROWSER_INSTALL_BUDGET / 1e6} MB)`);
  expect(bytes).toBeLessThanOrEqual(BROWSER_INSTALL_BUDGET);
  expect(await benchmarksBlock('installs'), 'docs/benchmarks.md: run npm run measure:install').toBe(installsBlock(figures));
});
