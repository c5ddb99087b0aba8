// A guide followed as written: a fresh folder where the guide's `file=` blocks become files and its `run`
// blocks run in bash, with `npx merchant-elements-server …` and `node_modules/merchant-elements/…` meaning
// this checkout (the guides' `npm install` is the registry's; here the packages are this working tree's),
// or, in the consumer suite (test/consumers/guides.test.ts), the packed tarballs installed by npm.
//
// The one change made to the guides' text: the ports they name (4010, 8080, 8000…) become free ports, the
// same everywhere in one run, since tests listen on free ports only.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { freePort } from '../support/free-port.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { buildCdnIife } from '../../demo/server/cdn-build.js';
import { blocksOf, type CodeBlock, fileOf, kindOf, ROOT } from './markdown.js';


/** A command started in a terminal of its own, and what it printed. */
export interface Terminal {
  name: string;
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `bash -c script` in `cwd`; its output is kept for failures' messages. */
function startTerminal(name: string, script: string, cwd: string, env: NodeJS.ProcessEnv): Terminal {
  // A process group of its own, so that stopping the terminal stops what its script started (npx, node).
  const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let printed = '';
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };
  return {
    name,
    process: child,
    output: () => printed,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) signal('SIGTERM');
      const killer = setTimeout(() => signal('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Resolves once something accepts connections on `port`; rejects when `terminal` exits first. */
async function listening(port: number, terminal: Terminal, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (terminal.process.exitCode !== null || terminal.process.signalCode !== null) {
      throw new Error(`terminal "${terminal.name}" exited before it listened on ${port}:\n${terminal.output()}`);
    }
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      }).once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`terminal "${terminal.name}" did not listen on ${port}:\n${terminal.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a guide's test says of it. */
export interface GuideOptions {
  /** The guide's long-running terminals (`run=NAME` blocks) and the port (as the guide writes it) each listens on. */
  terminals: Record<string, number>;
  /** Other ports the guide names (a shop's address in the proxy's settings, say), remapped too. */
  ports?: number[];
  /** Packages of this checkout's node_modules the guide's own code imports (`express`). */
  packages?: string[];
  /** Node runs TypeScript sources: the guide's Node code imports `merchant-elements/proxy` from this checkout's src/. */
  node?: boolean;
  /**
   * A folder whose node_modules holds the packed tarballs as `npm install` put them (the consumer suite's
   * workspace): the guide is followed there, with the packages as published instead of this checkout.
   */
  installed?: string;
}

/** A folder where a guide is followed. */
export interface GuideWorld {
  dir: string;
  /** The environment the guide's commands run in (Node runs the checkout's TypeScript through tsx with `node`). */
  env: NodeJS.ProcessEnv;
  /** The free port standing for a port the guide names. */
  port(asWritten: number): number;
  /** `http://127.0.0.1:<port>` for a port the guide names, plus `path`. */
  url(asWritten: number, path?: string): string;
  /** The guide's text with its ports remapped. */
  remap(text: string): string;
  /** Writes `file` as `doc`'s `file=` blocks give it (ports remapped), under `as` (default: its own name). */
  write(doc: string, file: string, as?: string): Promise<void>;
  /** Writes every `file=` block of `doc`. */
  writeAll(doc: string): Promise<string[]>;
  /**
   * Runs `doc`'s `run` blocks and starts its `run=NAME` terminals, in the guide's order, each terminal
   * awaited until it listens. Resolves what each `run` block printed on stdout, in order.
   */
  follow(doc: string): Promise<string[]>;
  /** A started terminal, by name. */
  terminal(name: string): Terminal;
  /** Blocks of the docs followed that nothing ran or wrote (a guide step the test skipped). */
  unused(): CodeBlock[];
  close(): Promise<void>;
}

/** The CDN script, built once per test file (the same build the package ships). */
let cdn: Promise<string> | undefined;

/**
 * A fresh folder with a `package.json` and a `node_modules`: this checkout's (checkoutModules), or, with
 * `installed`, the packed tarballs as npm installed them.
 */
export async function guideWorld(options: GuideOptions): Promise<GuideWorld> {
  const dir = await mkdtemp(join(options.installed ?? tmpdir(), 'guide-'));
  const written = new Set<string>();
  const ports = new Map<number, number>();
  for (const asWritten of [...Object.values(options.terminals), ...(options.ports ?? [])]) ports.set(asWritten, await freePort());
  const remap = (text: string) => text.replace(/\b\d{4,5}\b/g, (n) => String(ports.get(Number(n)) ?? n));
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
  if (options.installed) {
    // The reader's folder after `npm install`: its node_modules is the workspace's (npx finds the bins there).
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'guide', private: true }));
    await symlink(join(options.installed, 'node_modules'), join(dir, 'node_modules'));
  } else {
    await checkoutModules(dir, options);
    if (options.node) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --import=${join(ROOT, 'node_modules/tsx/dist/esm/index.mjs')}`.trim();
  }

  const terminals = new Map<string, Terminal>();
  const followed: string[] = [];
  const ran = new Set<string>();
  const key = (b: CodeBlock) => `${b.doc}:${b.line}`;

  const world: GuideWorld = {
    dir,
    env,
    port(asWritten) {
      const port = ports.get(asWritten);
      if (port === undefined) throw new Error(`the guide's port ${asWritten} is not declared`);
      return port;
    },
    url: (asWritten, path = '') => `http://127.0.0.1:${world.port(asWritten)}${path}`,
    remap,
    async write(doc, file, as = file) {
      await mkdir(dirname(join(dir, as)), { recursive: true });
      await writeFile(join(dir, as), remap(fileOf(doc, file)));
      for (const b of blocksOf(doc)) if (b.attrs.file === file) written.add(key(b));
    },
    async writeAll(doc) {
      const files = [...new Set(blocksOf(doc).flatMap((b) => (typeof b.attrs.file === 'string' ? [b.attrs.file] : [])))];
      for (const file of files) await world.write(doc, file);
      return files;
    },
    async follow(doc) {
      followed.push(doc);
      const printed: string[] = [];
      for (const block of blocksOf(doc)) {
        const kind = kindOf(block);
        if (kind === 'run') {
          ran.add(key(block));
          const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', remap(block.code)], { cwd: dir, env, timeout: 60_000 }).catch(
            (err: Error & { stderr?: string }) => {
              throw new Error(`${doc}:${block.line}: the step failed: ${err.message}\n${err.stderr ?? ''}`);
            },
          );
          printed.push(stdout);
        } else if (kind === 'terminal') {
          const name = block.attrs.run as string;
          const port = options.terminals[name];
          if (port === undefined) throw new Error(`${doc}:${block.line}: terminal "${name}" has no port in the test`);
          ran.add(key(block));
          const terminal = startTerminal(name, remap(block.code), dir, env);
          terminals.set(name, terminal);
          await listening(world.port(port), terminal);
        }
      }
      return printed;
    },
    terminal(name) {
      const terminal = terminals.get(name);
      if (!terminal) throw new Error(`no terminal "${name}" was started`);
      return terminal;
    },
    unused() {
      return followed.flatMap((doc) =>
        blocksOf(doc).filter((b) => {
          const kind = kindOf(b);
          if (kind === 'file') return !written.has(key(b));
          return (kind === 'run' || kind === 'terminal') && !ran.has(key(b));
        }),
      );
    },
    async close() {
      await Promise.all([...terminals.values()].reverse().map((t) => t.stop()));
      await rm(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/**
 * `dir`'s node_modules holding this checkout as `merchant-elements` and `merchant-elements-server` (their
 * commands, `dist/cdn/merchant-elements.iife.js`, and `/proxy`, `/provider`, `/sandbox` from src/ through tsx).
 */
async function checkoutModules(dir: string, options: GuideOptions): Promise<void> {
  const modules = join(dir, 'node_modules');
  const browserPkg = join(modules, 'merchant-elements');
  const serverPkg = join(modules, 'merchant-elements-server');
  await mkdir(join(browserPkg, 'dist/cdn'), { recursive: true });
  await mkdir(join(serverPkg, 'bin'), { recursive: true });
  await mkdir(join(modules, '.bin'), { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'guide', private: true, type: 'commonjs' }));
  const server = (entry: string) => `./src/${entry}/index.ts`;
  await writeFile(
    join(browserPkg, 'package.json'),
    JSON.stringify({
      name: 'merchant-elements',
      version: '0.0.0-checkout',
      type: 'module',
      bin: { 'merchant-elements': './bin/merchant-elements.js' },
      exports: {
        './proxy': server('proxy'),
        './provider': server('provider'),
        './sandbox': server('sandbox'),
        './cdn/merchant-elements.iife.js': './dist/cdn/merchant-elements.iife.js',
        './package.json': './package.json',
      },
    }),
  );
  await writeFile(
    join(serverPkg, 'package.json'),
    JSON.stringify({ name: 'merchant-elements-server', version: '0.0.0-checkout', type: 'module', bin: { 'merchant-elements-server': './bin/merchant-elements-server.js' } }),
  );
  // The checkout's command: it runs src/ through tsx when src/ sits beside it (symlinks resolve to the checkout).
  await symlink(join(ROOT, 'src'), join(browserPkg, 'src'));
  await mkdir(join(browserPkg, 'bin'));
  await symlink(join(ROOT, 'bin/merchant-elements.js'), join(browserPkg, 'bin/merchant-elements.js'));
  await symlink(join(ROOT, 'bin/merchant-elements.js'), join(serverPkg, 'bin/merchant-elements-server.js'));
  await symlink('../merchant-elements/bin/merchant-elements.js', join(modules, '.bin/merchant-elements'));
  await symlink('../merchant-elements-server/bin/merchant-elements-server.js', join(modules, '.bin/merchant-elements-server'));
  for (const name of options.packages ?? []) {
    await mkdir(dirname(join(modules, name)), { recursive: true });
    await symlink(join(ROOT, 'node_modules', name), join(modules, name));
  }
  await writeFile(join(browserPkg, 'dist/cdn/merchant-elements.iife.js'), await (cdn ??= buildCdnIife()));
}
