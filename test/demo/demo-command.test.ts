import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { freePort } from '../support/free-port.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../cli/cli-harness.js';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('npm start and merchant-elements demo', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('explains itself, and refuses a bad port or time scale with exit code 2', async () => {
    const help = await runMain(['demo', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: merchant-elements demo [--port N] [--host H] [--time-scale N]');
    expect((await runMain(['help'], {})).stdout).toMatch(/^ {2}demo \[--port N\]/m);

    const badPort = await runMain(['demo', '--port', 'x'], {});
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port');
    expect((await runMain(['demo', '--time-scale', '0'], {})).code).toBe(2);
  });

  it('npm start serves the shop on PORT from a checkout with no build step, and stops on SIGTERM', async () => {
    const { scripts } = JSON.parse(await readFile(new URL('package.json', `file://${ROOT}`), 'utf8')) as { scripts: { start: string } };
    expect(scripts.start).toBe('node bin/merchant-elements.js demo');
    // The start script's own command, without npm in between (so the signal reaches the demo itself).
    const child = spawn(process.execPath, ['bin/merchant-elements.js', 'demo'], { cwd: ROOT, env: { ...process.env, PORT: '0' } });
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /shop\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`npm start exited ${code}: ${out}`)));
    });
    expect(out).toContain(`${url}/sandbox/__sandbox/phone`);
    expect(out).toContain(`${url}/merchant-elements/health`);
    // Every address the banner prints opens something (the proxy's mount path alone answered 404).
    const printed = [...out.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]);
    expect(printed.length).toBeGreaterThanOrEqual(5);
    for (const address of printed) expect((await fetch(address)).status, address).toBeLessThan(400);
    const shop = await fetch(`${url}/`);
    expect(shop.status).toBe(200);
    expect(await shop.text()).toContain('Makola Market Goods');

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);

  it('answers the first connection the open port accepts: it listens only once the shop is ready', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['bin/merchant-elements.js', 'demo', '--port', String(port)], { cwd: ROOT, env: process.env });
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let exited = false;
    child.once('exit', () => (exited = true));
    // As a script waiting for the port would: connect again and again until one connection is accepted.
    let socket: Socket | undefined;
    while (!socket && !exited) {
      socket = await new Promise<Socket | undefined>((resolve) => {
        const s = connect(port, '127.0.0.1', () => resolve(s)).once('error', () => resolve(undefined));
      });
      if (!socket) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(socket, 'the demo exited before it listened').toBeDefined();
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      socket!.on('data', (chunk: Buffer) => (text += chunk.toString())).once('end', () => resolve(text)).once('error', reject);
      socket!.write(`GET /merchant-elements/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    child.kill('SIGTERM');
  }, 60_000);
});

