// `npm run measure:install` (after `npm run build`): what an application's `npm install` brings in, from the
// packed tarballs into empty folders, the dependencies from the registry (network needed): the browser
// package alone, as a site that only puts the elements on its pages installs it, and both packages, as a
// merchant's server does. Prints packages and the bytes of their files; docs/benchmarks.md keeps the
// figures. The consumer tests hold the browser package alone to its budget with the same functions.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ROOT } from './build/bundles.js';
import { serverPackageDir } from './build/server-package.js';

const run = promisify(execFile);

/** A page-only site's install (merchant-elements alone) may take this many bytes of files in node_modules. */
export const BROWSER_INSTALL_BUDGET = 5_000_000;

/** Packs the package in `dir` into `out`; the tarball's path. */
export async function pack(dir: string, out: string) {
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: dir });
  return join(out, (JSON.parse(stdout) as [{ filename: string }])[0].filename);
}

/**
 * Bytes of every file under `dir`/node_modules (symlinks not followed), and the package.json files of
 * installed packages. File sizes, not the blocks a file system gives them (a whole block to each small
 * file, so `du` says much more, by how the disk is formatted).
 */
async function measure(dir: string): Promise<{ bytes: number; packages: number }> {
  let bytes = 0;
  let packages = 0;
  const walk = async (path: string, depthInModules: number) => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) await walk(full, entry.name === 'node_modules' ? 0 : depthInModules + 1);
      else if (entry.isFile()) {
        bytes += (await stat(full)).size;
        // node_modules/<name>/package.json or node_modules/@scope/<name>/package.json.
        const scoped = path.split('/').at(-2)?.startsWith('@');
        if (entry.name === 'package.json' && (depthInModules === 1 || (depthInModules === 2 && scoped))) packages++;
      }
    }
  };
  await walk(join(dir, 'node_modules'), 0);
  return { bytes, packages };
}

/**
 * `npm install` of `tarballs` into an empty application folder, measured. `preferOffline` takes the
 * registry's answers from npm's cache where it has them (tests); the figures for the docs ask the registry.
 */
export async function install(tarballs: string[], { preferOffline = false } = {}): Promise<{ bytes: number; packages: number; seconds: number }> {
  const app = await mkdtemp(join(tmpdir(), 'merchant-elements-install-'));
  try {
    await writeFile(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
    const started = Date.now();
    const cache = preferOffline ? ['--prefer-offline'] : [];
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...cache, ...tarballs], { cwd: app });
    return { ...(await measure(app)), seconds: (Date.now() - started) / 1000 };
  } finally {
    await rm(app, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await mkdtemp(join(tmpdir(), 'merchant-elements-tarballs-'));
  try {
    const browser = await pack(ROOT, out);
    const server = await pack(serverPackageDir(`${ROOT}dist`), out);
    const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
    for (const [what, tarballs] of [
      ['merchant-elements (a page-only site)', [browser]],
      ['merchant-elements + merchant-elements-server (a merchant server)', [browser, server]],
    ] as const) {
      const { bytes, packages, seconds } = await install([...tarballs]);
      process.stdout.write(`${what}: ${packages} packages, ${mb(bytes)} in node_modules (${seconds.toFixed(1)} s)\n`);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
