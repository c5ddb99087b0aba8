// Once for the consumer suite: the two packages built as `npm run build` builds them, packed by `npm pack`
// (what `npm publish` uploads), and installed by `npm install` into one workspace beside the frameworks a
// merchant's applications use. Each application is a folder of that workspace: Node resolves its imports
// from the workspace's node_modules, where only what the tarballs declare was installed, as in a real shop.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { pack } from '../../scripts/measure-install.js';
import { buildPackage, ROOT } from '../build/built-package.js';

const run = promisify(execFile);

/** What the applications install beside the two tarballs: the checkout's own versions, so npm's cache has them. */
const FRAMEWORKS = [
  'next', 'react', 'react-dom', '@types/react', '@types/react-dom', '@types/node', 'typescript',
  'vite', '@vitejs/plugin-react', '@vitejs/plugin-vue', 'vue', 'vue-tsc',
  'express', '@types/express', 'fastify', '@fastify/middie', 'standardwebhooks',
];

/** What the suite's tests find through `inject('consumers')`. */
export interface Consumers {
  /** The folder whose node_modules holds the installed tarballs and frameworks; applications go inside it. */
  workspace: string;
  /** The tarballs `npm pack` made of one build. */
  tarballs: { browser: string; server: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    consumers: Consumers;
  }
}

const version = async (name: string) => (JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

export default async function setup(project: TestProject) {
  // CONSUMERS_WORKSPACE names the workspace of an earlier run, kept, to work on one application's test
  // without building and installing again: `tsx test/consumers/keep-workspace.ts` makes one.
  const kept = process.env['CONSUMERS_WORKSPACE'];
  if (kept) {
    const tarballs = JSON.parse(await readFile(join(kept, 'tarballs.json'), 'utf8')) as Consumers['tarballs'];
    project.provide('consumers', { workspace: kept, tarballs });
    return;
  }
  const { root, consumers } = await prepare();
  project.provide('consumers', consumers);
  return () => rm(root, { recursive: true, force: true });
}

/** Builds, packs and installs into a new folder: the folder, and what the tests are given. */
export async function prepare(): Promise<{ root: string; consumers: Consumers }> {
  const built = await buildPackage();
  if (built.build.code !== 0) throw new Error(`the package build failed:\n${built.build.stdout}${built.build.stderr}`);
  const root = await mkdtemp(join(tmpdir(), 'merchant-elements-consumers-'));
  const tarballDir = join(root, 'tarballs');
  await mkdir(tarballDir);
  const tarballs = { browser: await pack(built.dir, tarballDir), server: await pack(built.serverDir, tarballDir) };
  await built.remove();

  const workspace = join(root, 'workspace');
  await mkdir(workspace);
  const dependencies: Record<string, string> = { 'merchant-elements': `file:${tarballs.browser}`, 'merchant-elements-server': `file:${tarballs.server}` };
  for (const name of FRAMEWORKS) dependencies[name] = await version(name);
  await writeFile(join(workspace, 'package.json'), `${JSON.stringify({ name: 'consumers', private: true, dependencies }, null, 2)}\n`);
  // From npm's cache where it has the packages (the checkout's `npm ci` put them there), else the registry.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: workspace,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });

  await writeFile(join(workspace, 'tarballs.json'), JSON.stringify(tarballs));
  return { root, consumers: { workspace, tarballs } };
}
