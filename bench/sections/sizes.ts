import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { ROOT, selfContainedBuild } from '../../scripts/build/bundles.js';
import { BUDGETS, bundle, measureSizes } from '../../scripts/check-size.js';
import type { Figure, SectionResult } from '../lib/report.js';
import { fmt, times } from '../lib/stats.js';

const LIT_BASELINE = fileURLToPath(new URL('../fixtures/lit-baseline.ts', import.meta.url));
const ALL_ELEMENTS = `${ROOT}src/elements/index.ts`;

/** gzip -9, as scripts/check-size.ts measures. */
const gzipped = (code: string | Buffer) => gzipSync(code, { level: 9 }).length;

/**
 * Bundle sizes: the budgeted bundles by the builds engineer's `measureSizes()` (scripts/check-size.ts),
 * the CDN files as `npm run build` makes them (built into `cdnDir`, which the first-render section then
 * serves), and the baseline, a minimal Lit element bundled by the same `bundle()`.
 */
export async function bundleSizes(cdnDir: string): Promise<SectionResult> {
  process.env['NODE_ENV'] = 'production';
  const rows = await measureSizes();
  const lit = gzipped(await bundle(LIT_BASELINE));
  await build(selfContainedBuild(ALL_ELEMENTS, 'es', 'merchant-elements.js', cdnDir));
  await build(selfContainedBuild(ALL_ELEMENTS, 'iife', 'merchant-elements.iife.js', cdnDir));
  const cdn = {
    esm: gzipped(await readFile(`${cdnDir}/merchant-elements.js`)),
    iife: gzipped(await readFile(`${cdnDir}/merchant-elements.iife.js`)),
  };

  const baseline = `${fmt(lit)} B (Lit + a minimal element)`;
  const figure = (name: string, gzip: number, value: string, budget?: number): Figure => ({
    figure: `${name}, gzip`,
    value,
    baseline,
    ratio: times(gzip / lit),
    ...(budget === undefined ? {} : { target: `≤ ${fmt(budget)} B`, met: gzip <= budget }),
  });
  const figures: Figure[] = [
    ...rows.map((row) => figure(`${row.name} + Lit`, row.gzipped, `${fmt(row.gzipped)} B (${fmt(row.minified)} B minified)`, row.budget)),
    figure('CDN ESM build dist/cdn/merchant-elements.js', cdn.esm, `${fmt(cdn.esm)} B`, BUDGETS.all),
    figure('CDN classic-script build merchant-elements.iife.js', cdn.iife, `${fmt(cdn.iife)} B`),
  ];
  return {
    title: 'Bundle size',
    figures,
    method: [
      'Element bundles: `measureSizes()` of scripts/check-size.ts (what `npm run check:size` runs): each entry built from src in memory by Vite as one minified ES module with Lit inside and nothing external (`NODE_ENV=production`, so Lit\'s production build), gzipped at level 9. Budgets: `BUDGETS` of the same file.',
      'CDN files: built by `selfContainedBuild()` of scripts/build/bundles.ts exactly as `npm run build` writes dist/cdn (into a temporary directory), gzipped at level 9.',
      'Baseline: bench/fixtures/lit-baseline.ts (a LitElement with styles, one property and a button) through the same `bundle()`; the ratio says how many times Lit-plus-nothing each bundle weighs.',
    ],
    notes: [],
  };
}
