// `npm run measure:install` (after `npm run build`): what an application's `npm install` brings in, from the
// packed tarballs into empty folders (the dependencies from npm's cache where it has them, else the
// registry): the browser package alone, as a site that only puts the elements on its pages installs it,
// and both packages, as a merchant's server does; the browser tarball's own unpacked size; and what one
// React wrapper adds to an application's bundle. Writes the figures into docs/benchmarks.md's generated
// blocks (`installs`, `react-wrappers`); `--check` exits 1 when the docs say otherwise. The tests measure
// again with the same functions and fail when the docs disagree (test/consumers/package-files.test.ts,
// test/build/build.test.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
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

/** The total size of a tarball's files (what npm calls its unpacked size): the sizes its tar headers give. */
export async function unpackedSize(tarball: string): Promise<number> {
  const tar = gunzipSync(await readFile(tarball));
  let total = 0;
  for (let at = 0; at + 512 <= tar.length; ) {
    const size = parseInt(tar.subarray(at + 124, at + 136).toString('latin1').replace(/\0.*$/s, '').trim() || '0', 8);
    if (tar[at] === 0) break; // the two empty blocks that end the archive
    if (String.fromCharCode(tar[at + 156]!) === '0' || tar[at + 156] === 0) total += size; // a regular file
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return total;
}

/** gzip -9 bytes of what esbuild bundles (minified, React external) for one import from the package in `dir`. */
async function bundled(dir: string, names: string, from: string): Promise<number> {
  const { build } = await import('esbuild');
  const out = await build({
    stdin: { contents: `import { ${names} } from '${from}'; console.log(${names});`, resolveDir: dir },
    bundle: true, minify: true, write: false, format: 'esm', platform: 'browser', external: ['react', 'react-dom'], logLevel: 'silent',
  });
  return gzipSync(out.outputFiles[0]!.contents, { level: 9 }).length;
}

/** What one React wrapper costs an application (the package built in `dir`): CheckoutButton from its own entry, from the one of all three, and all three. */
export async function wrapperSizes(dir: string): Promise<{ own: number; shaken: number; three: number }> {
  return {
    own: await bundled(dir, 'CheckoutButton', 'merchant-elements/react/checkout-button'),
    shaken: await bundled(dir, 'CheckoutButton', 'merchant-elements/react'),
    three: await bundled(dir, 'OtpVerify, PayByMobile, CheckoutButton', 'merchant-elements/react'),
  };
}

export interface InstallFigures {
  browser: { bytes: number; packages: number };
  both: { bytes: number; packages: number };
  /** The browser tarball's unpacked size. */
  unpacked: number;
}

/** Installs the browser tarball alone and both tarballs into empty folders, from npm's cache where it can. */
export async function installFigures(tarballs: { browser: string; server: string }): Promise<InstallFigures> {
  const browser = await install([tarballs.browser], { preferOffline: true });
  const both = await install([tarballs.browser, tarballs.server], { preferOffline: true });
  return {
    browser: { bytes: browser.bytes, packages: browser.packages },
    both: { bytes: both.bytes, packages: both.packages },
    unpacked: await unpackedSize(tarballs.browser),
  };
}

/**
 * Megabytes to one decimal: the guides ship in the package, so every edit of the docs moves its bytes a
 * little; a figure to 10 kB would send the docs out of date with every page written.
 */
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`;

/** docs/benchmarks.md's `installs` block. */
export function installsBlock(f: InstallFigures): string {
  const met = f.browser.bytes <= BROWSER_INSTALL_BUDGET ? 'met' : 'NOT met';
  return [
    '| install | packages | on disk | target |',
    '|---|---|---|---|',
    `| \`merchant-elements\` alone (a site that only puts the elements on its pages) | ${f.browser.packages} | ${mb(f.browser.bytes)} | ≤ ${BROWSER_INSTALL_BUDGET / 1e6} MB, ${met} |`,
    `| \`merchant-elements\` + \`merchant-elements-server\` (the merchant’s server) | ${f.both.packages} | ${mb(f.both.bytes)} | |`,
    '',
    `The \`merchant-elements\` tarball unpacks to ${mb(f.unpacked)} (its code, types, manifest and the guides as text).`,
  ].join('\n');
}

/** docs/benchmarks.md's `react-wrappers` block. */
export function reactWrappersBlock(s: { own: number; shaken: number; three: number }): string {
  return `\`CheckoutButton\` from \`merchant-elements/react/checkout-button\` ${kB(s.own)}, from \`merchant-elements/react\` ${kB(s.shaken)}, all three wrappers ${kB(s.three)}.`;
}

/** The text of generated block `name` of docs/benchmarks.md. */
export async function benchmarksBlock(name: string): Promise<string> {
  const doc = await readFile(join(ROOT, 'docs/benchmarks.md'), 'utf8');
  const found = new RegExp(`<!-- generated:${name}\\b[^>]*-->\\n([\\s\\S]*?)<!-- /generated:${name} -->`).exec(doc);
  if (!found) throw new Error(`docs/benchmarks.md has no generated:${name} block`);
  return found[1]!.trim();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { withBlock } = await import('./docs/generate.js');
  const out = await mkdtemp(join(tmpdir(), 'merchant-elements-tarballs-'));
  try {
    const tarballs = { browser: await pack(ROOT, out), server: await pack(serverPackageDir(`${ROOT}dist`), out) };
    const blocks = { installs: installsBlock(await installFigures(tarballs)), 'react-wrappers': reactWrappersBlock(await wrapperSizes(ROOT)) };
    const path = join(ROOT, 'docs/benchmarks.md');
    const before = await readFile(path, 'utf8');
    let after = before;
    for (const [name, text] of Object.entries(blocks)) after = withBlock(after, name, text);
    process.stdout.write(`${Object.values(blocks).join('\n\n')}\n`);
    if (process.argv.includes('--check')) {
      if (after !== before) process.stderr.write('docs/benchmarks.md disagrees with this measurement: run `npm run measure:install`\n');
      process.exitCode = after === before ? 0 : 1;
    } else if (after !== before) {
      await writeFile(path, after);
      process.stdout.write('wrote docs/benchmarks.md\n');
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
