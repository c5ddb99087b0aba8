import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.js';
import { parseFaults, runSandboxCommand } from '../../src/cli/sandbox-command.js';

describe('merchant-elements sandbox', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  it('parses a fault rate alone and with kinds', () => {
    expect(parseFaults('0.2')).toEqual({ faultRate: 0.2 });
    expect(parseFaults('0.1:503,hang')).toEqual({ faultRate: 0.1, faultKinds: ['503', 'hang'] });
  });

  it('refuses a rate out of range and unknown kinds, naming them', () => {
    expect(() => parseFaults('2')).toThrow(UsageError);
    expect(() => parseFaults('0.1:503,teapot')).toThrow(/teapot/);
  });

  it('starts a sandbox and prints its URLs and default credentials', async () => {
    const { sandbox, banner } = await runSandboxCommand({ port: 0, host: '127.0.0.1', timeScale: 0.5, faults: '0.25:503' });
    cleanups.push(() => sandbox.close());
    expect(banner).toContain(sandbox.url);
    expect(banner).toContain(`${sandbox.url}/gateway`);
    expect(banner).toContain('test-api-key');
    expect(banner).toContain('test-user:test-password');
    expect(banner).toContain('Bearer test-checkout-key');
    expect(banner).toContain('25 %');
    expect(sandbox.app.sandbox.options.timeScale).toBe(0.5);
    const res = await fetch(`${sandbox.url}/__sandbox/outbox`);
    expect(res.status).toBe(200);
  });

  it.each(['sandbox', 'demo'])('%s: exits 1 naming the port when it is already in use', async (command) => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => busy.close(() => resolve())));
    const { port } = busy.address() as AddressInfo;
    const child = spawn(process.execPath, ['bin/merchant-elements.js', command, '--port', String(port)], {
      cwd: new URL('../..', import.meta.url).pathname,
    });
    cleanups.push(() => child.kill('SIGKILL'));
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(err).toBe(`merchant-elements: ${command}: port ${port} is already in use; pick another with --port or PORT\n`);
    expect(out).toBe('');
  }, 30_000);

  it('runs as a command, serves until stopped, and exits 2 on a bad option', async () => {
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['bin/merchant-elements.js', 'sandbox', '--port', '0'], {
      cwd: new URL('../..', import.meta.url).pathname,
    });
    cleanups.push(() => child.kill('SIGKILL'));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /\{base_url\}[^\n]*?(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const res = await fetch(`${url}/v1/external/account/balance`);
    expect(res.status).toBe(401);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);

    const bad = spawn(process.execPath, ['bin/merchant-elements.js', 'sandbox', '--port', 'x'], {
      cwd: new URL('../..', import.meta.url).pathname,
    });
    let err = '';
    bad.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const badCode = await new Promise<number | null>((resolve) => bad.once('exit', resolve));
    expect(badCode).toBe(2);
    expect(err).toMatch(/--port/);
  }, 30_000);
});
