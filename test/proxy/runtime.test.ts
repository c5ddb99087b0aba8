/**
 * The checker owns the world (DESIGN: proof): every clock, timer and random choice of src/proxy goes through
 * the one injected runtime (src/proxy/runtime.ts), so the model checker, handing its own, owns them all. A
 * limit once judged on `Date.now` made a model run's path depend on real time: its seed no longer replayed it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOST_RUNTIME } from '../../src/proxy/runtime.js';

const ROOT = join(import.meta.dirname, '../../src/proxy');
const DIRECT = /\bDate\.now\b|\bMath\.random\b|(?<![.\w])setTimeout\s*\(|(?<![.\w])setInterval\s*\(/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a line, without a trailing comment or a comment line. */
const code = (line: string) => (/^\s*(\*|\/\/|\/\*)/.test(line) ? '' : line.replace(/\s\/\/.*$/, ''));

describe('the proxy\u2019s runtime', () => {
  it('is the only module of src/proxy that reads the host\u2019s clock, timers or randomness directly', () => {
    const direct = sources(ROOT)
      .filter((path) => !path.endsWith('/runtime.ts'))
      .flatMap((path) =>
        readFileSync(path, 'utf8')
          .split('\n')
          .map((line, i) => ({ at: `${relative(ROOT, path)}:${i + 1}`, line: code(line) }))
          .filter(({ line }) => DIRECT.test(line))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
    expect(direct).toEqual([]);
  });

  it('finds a direct call where there is one (the check can fail)', () => {
    expect(DIRECT.test('const now = Date.now();')).toBe(true);
    expect(DIRECT.test('timer = setTimeout(run, 10);')).toBe(true);
    expect(DIRECT.test('jitter * Math.random()')).toBe(true);
    expect(DIRECT.test('this.runtime.timeout(run, 10)')).toBe(false);
    expect(DIRECT.test('clearTimeout(timer)')).toBe(false);
  });

  it('gives the host\u2019s clock, timers and randomness by default', async () => {
    const before = Date.now();
    expect(HOST_RUNTIME.now()).toBeGreaterThanOrEqual(before);
    expect(HOST_RUNTIME.random()).toBeLessThan(1);
    expect(HOST_RUNTIME.newId()).toMatch(/^[\w-]{22}$/);
    let fired = false;
    clearTimeout(HOST_RUNTIME.timeout(() => (fired = true), 1));
    await HOST_RUNTIME.sleep(5);
    expect(fired).toBe(false);
  });
});
