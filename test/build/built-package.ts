// The package as npm would publish it, built once into a temporary folder: package.json, the README, the
// guides (docs/*.md) and the bin script copied there, dist/ and custom-elements.json built there by
// `scripts/build.ts --out-dir`, and node_modules linked to the checkout's, as an application's install
// would provide the dependencies.
import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository's root. */
export const ROOT = new URL('../../', import.meta.url).pathname;

/** Where the server package's own files are, in the repository and in a built package's folder. */
export const SERVER_PACKAGE = 'packages/merchant-elements-server';

/** A finished child process. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node …args` in `cwd` to its end (never throws for a non-zero exit). */
export function runNode(args: string[], cwd: string, timeout = 150_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      // Killed at the timeout: say so, or the failure reads as a build that printed nothing.
      const killed = error?.killed ? `\n(stopped after ${timeout / 1000} s: ${error.signal})\n` : '';
      resolve({ code, stdout, stderr: stderr + killed });
    });
  });
}

/** Runs one of the project's scripts (TypeScript, under tsx) from the root. */
export const runScript = (script: string, ...args: string[]) => runNode(['--import', 'tsx', `scripts/${script}`, ...args], ROOT);

/** A package.json, as far as these tests read one. */
export type PackageJson = { exports: Record<string, string | Record<string, string>>; [field: string]: unknown };

/**
 * `dir/node_modules` as an application's install would make it: every package of the checkout's
 * node_modules, linked one by one, and `extra` packages (name to folder) beside them.
 */
export async function linkNodeModules(dir: string, extra: Record<string, string> = {}) {
  const modules = join(dir, 'node_modules');
  await mkdir(modules);
  const names = (await readdir(join(ROOT, 'node_modules'))).filter((name) => !(name in extra));
  await Promise.all(names.map((name) => symlink(join(ROOT, 'node_modules', name), join(modules, name), 'dir')));
  await Promise.all(Object.entries(extra).map(([name, target]) => symlink(target, join(modules, name), 'dir')));
}

export interface BuiltPackage {
  /** merchant-elements, the browser package. */
  dir: string;
  pkg: PackageJson;
  /** merchant-elements-server, built beside it (its `packages/merchant-elements-server/`). */
  serverDir: string;
  serverPkg: PackageJson;
  /** The build's own run. */
  build: Run;
  remove(): Promise<void>;
}

/** Builds the package into a fresh temporary folder. */
export async function buildPackage(): Promise<BuiltPackage> {
  const dir = await mkdtemp(join(tmpdir(), 'merchant-elements-package-'));
  await mkdir(join(dir, 'bin'));
  // The guides ship as text beside the README, which links to them.
  await mkdir(join(dir, 'docs'));
  const guides = (await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  await Promise.all(
    ['package.json', 'README.md', 'bin/merchant-elements.js', ...guides].map((file) => copyFile(join(ROOT, file), join(dir, file))),
  );
  // The server package's checked-in files.
  const serverDir = join(dir, SERVER_PACKAGE);
  await cp(join(ROOT, SERVER_PACKAGE), serverDir, { recursive: true, filter: (from) => !from.endsWith('/dist') });
  // The application's node_modules: the checkout's packages, and the server package as an install of both.
  await linkNodeModules(dir, { 'merchant-elements-server': serverDir });
  // Types are `npm run typecheck`'s (which npm test runs first) and budgets a test of their own.
  // A build on two shared cores can take minutes: the limit only ends a build that hangs.
  const build = await runNode(['--import', 'tsx', 'scripts/build.ts', '--out-dir', join(dir, 'dist'), '--no-typecheck', '--no-size-check'], ROOT, 420_000);
  return {
    dir,
    pkg: JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')),
    serverDir,
    serverPkg: JSON.parse(await readFile(join(serverDir, 'package.json'), 'utf8')),
    build,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
