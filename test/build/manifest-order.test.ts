// Two builds of one commit pack the same bytes only if custom-elements.json comes out the same: the analyzer
// listed its modules in the order its glob met the files, which changed from run to run. The consumer
// suite packs two builds and compares them (test/consumers/reproducible.test.ts); this holds the cause.
import { readdirSync } from 'node:fs';
import { cli } from '@custom-elements-manifest/analyzer/cli.js';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './built-package.js';

type SourceFiles = (options: { ts: typeof ts; globs: string[] }) => ts.SourceFile[];

describe('custom-elements.json', () => {
  it('parses the elements’ files in path order, whatever order the glob lists them in', async () => {
    const config = (await import(`${ROOT}custom-elements-manifest.config.mjs`)) as { modulesInPathOrder: SourceFiles; default: { overrideModuleCreation: SourceFiles } };
    expect(config.default.overrideModuleCreation).toBe(config.modulesInPathOrder);
    const files = readdirSync(`${ROOT}src/elements`, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `src/elements/${f}`);
    const sorted = [...files].sort();
    const rotated = [...sorted.slice(7), ...sorted.slice(0, 7)];
    for (const globs of [files, [...sorted].reverse(), rotated]) {
      expect(config.modulesInPathOrder({ ts, globs }).map((f) => f.fileName)).toEqual(sorted);
    }
  });

  it('lists its modules by path, as the analyzer run with the project’s config writes it', async () => {
    const manifest = (await cli({ argv: ['analyze', '--quiet'], cwd: ROOT, noWrite: true })) as { modules: { path: string }[] };
    const paths = manifest.modules.map((m) => m.path);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths).toEqual([...paths].sort());
  });
});
