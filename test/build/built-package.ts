// The package as npm would publish it, built once into a temporary folder: package.json, the README, the
// docs it links to and the bin script copied there, dist/ and custom-elements.json built there by `scripts/build.ts --out-dir`, and
// node_modules linked to the checkout's, as an application's install would provide the dependencies.
import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository's root. */
export const ROOT = new URL('../../', import.meta.url).pathname;

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
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs one of the project's scripts (TypeScript, under tsx) from the root. */
export const runScript = (script: string, ...args: string[]) => runNode(['--import', 'tsx', `scripts/${script}`, ...args], ROOT);

export interface BuiltPackage {
  dir: string;
  pkg: { exports: Record<string, string | Record<string, string>>; [field: string]: unknown };
  /** The build's own run. */
  build: Run;
  remove(): Promise<void>;
}

/** Builds the package into a fresh temporary folder. */
export async function buildPackage(): Promise<BuiltPackage> {
  const dir = await mkdtemp(join(tmpdir(), 'merchant-elements-package-'));
  await mkdir(join(dir, 'bin'));
  await Promise.all(
    ['package.json', 'README.md', 'bin/merchant-elements.js'].map((file) => copyFile(join(ROOT, file), join(dir, file))),
  );
  // All of docs/: package.json's `files` says what of it npm packs.
  await cp(join(ROOT, 'docs'), join(dir, 'docs'), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // Types are `npm run typecheck`'s (which npm test runs first) and budgets a test of their own.
  const build = await runScript('build.ts', '--out-dir', join(dir, 'dist'), '--no-typecheck', '--no-size-check');
  return {
    dir,
    pkg: JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')),
    build,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
