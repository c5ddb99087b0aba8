// A guide's code as its reader copies it (the info-string markers of docs/development.md): each `file=PATH`
// block is that file, whole; `run` blocks are scripts run to their end, `run=NAME` ones terminals left
// running; the `not-run` install block names the packages. The ports a guide names become free ones.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { codeBlocks } from '../docs/markdown.js';

/** The files a guide shows, by path. */
export function guideFiles(markdown: string, doc: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const block of codeBlocks(markdown, doc)) {
    const path = block.attrs['file'];
    if (typeof path !== 'string') continue;
    if (path in files) throw new Error(`${doc}: two blocks are ${path}`);
    files[path] = block.code;
  }
  return files;
}

/** The guide's shell scripts: `run` ones in order, `run=NAME` ones by name. */
export function guideScripts(markdown: string, doc: string): { once: string[]; terminals: Record<string, string> } {
  const once: string[] = [];
  const terminals: Record<string, string> = {};
  for (const block of codeBlocks(markdown, doc).filter((b) => b.lang === 'sh')) {
    const run = block.attrs['run'];
    if (run === true) once.push(block.code);
    else if (typeof run === 'string') terminals[run] = block.code;
  }
  return { once, terminals };
}

/** The packages the guide's `npm install` lines name (its `not-run` shell block: the suite installs them). */
export function guidePackages(markdown: string, doc: string): string[] {
  const install = codeBlocks(markdown, doc).filter((b) => b.lang === 'sh' && b.attrs['not-run'] === true);
  return install.flatMap((b) => [...b.code.matchAll(/^npm install ((?:--[\w-]+ )*)(.+)$/gm)].flatMap((m) => m[2]!.trim().split(/\s+/)));
}

/** `text` with each port of `ports` (as the guide writes it) replaced by its free one. */
export const remapPorts = (text: string, ports: Record<number, number>) =>
  text.replace(/\b\d{4}\b/g, (port) => String(ports[Number(port)] ?? port));

/** A script started in bash, left running in a process group of its own: what it printed, and its end. */
export interface Terminal {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function startTerminal(script: string, cwd: string, env: NodeJS.ProcessEnv): Terminal {
  // A reader's terminal, not the test runner's: no NODE_ENV=test (with it, Next.js does not read .env.local).
  const { NODE_ENV: _runner, ...inherited } = process.env;
  const child = spawn('bash', ['-c', script], { cwd, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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

/** Resolves once something accepts connections on `port`; rejects with what `terminal` printed if it ends first. */
export async function listening(port: number, terminal: Terminal, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (terminal.process.exitCode !== null || terminal.process.signalCode !== null) {
      throw new Error(`${name} ended before it listened on ${port}:\n${terminal.output()}`);
    }
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      }).once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${name} did not listen on ${port} within ${timeoutMs / 1000} s:\n${terminal.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
