import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { ROOT } from '../../scripts/build/bundles.js';
import { buildCdn, ELEMENT_MODULES } from '../../scripts/build/cdn.js';
import { BUDGETS, bundle, gzipped, measureSizes, pageFiles, type SizeRow } from '../../scripts/check-size.js';
import type { Figure, SectionResult } from '../lib/report.js';
import { fmt, times } from '../lib/stats.js';

const LIT_BASELINE = fileURLToPath(new URL('../fixtures/lit-baseline.ts', import.meta.url));

/** Minified bytes of one element alone with Lit, by where they come from (esbuild's metafile). */
async function whereTheBytesAre(element: string): Promise<string> {
  const result = await esbuild({
    entryPoints: [ELEMENT_MODULES[element as keyof typeof ELEMENT_MODULES]],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    metafile: true,
    conditions: ['module', 'browser', 'production'],
    tsconfig: `${ROOT}tsconfig.json`,
    logLevel: 'silent',
  });
  const inputs = Object.entries(Object.values(result.metafile.outputs)[0]!.inputs);
  const groups = new Map<string, { total: number; files: [string, number][] }>();
  for (const [path, { bytesInOutput }] of inputs) {
    const group = path.includes('node_modules/') ? 'Lit' : path.includes('src/elements/shared/') ? 'src/elements/shared' : path.includes('src/protocol/') ? 'src/protocol' : `src/elements/${element}`;
    const entry = groups.get(group) ?? { total: 0, files: [] };
    entry.total += bytesInOutput;
    entry.files.push([path.slice(path.lastIndexOf('/') + 1), bytesInOutput]);
    groups.set(group, entry);
  }
  return [...groups]
    .sort((a, b) => b[1].total - a[1].total)
    .map(([group, { total, files }]) => {
      const top = files.sort((a, b) => b[1] - a[1]).slice(0, group === 'Lit' ? 0 : 4);
      return `${group} ${fmt(total)} B${top.length ? ` (${top.map(([f, b]) => `${f} ${fmt(b)}`).join(', ')})` : ''}`;
    })
    .join('; ');
}

/**
 * Bundle sizes: the budgeted figures by the builds engineer's `measureSizes()` (scripts/check-size.ts),
 * the CDN folder as `npm run build` makes it (built into `cdnDir`, which the first-render section then
 * serves), where one element's bytes come from, and the baseline, a minimal Lit element bundled by the
 * same `bundle()`.
 */
export async function bundleSizes(cdnDir: string): Promise<SectionResult> {
  process.env['NODE_ENV'] = 'production';
  const rows = await measureSizes();
  const lit = gzipped(await bundle(LIT_BASELINE));
  const cdn = await buildCdn(cdnDir);
  const file = (name: string) => gzipped(cdn.files.get(name)!);

  const baseline = `${fmt(lit)} B (Lit + a minimal element)`;
  const figure = (name: string, gzip: number, value: string, budget?: number, kind: SizeRow['kind'] = 'target'): Figure => ({
    figure: `${name}, gzip`,
    value,
    baseline,
    ratio: times(gzip / lit),
    ...(budget === undefined ? {} : { target: `≤ ${fmt(budget)} B${kind == 'ceiling' ? ' (ceiling)' : ''}`, met: gzip <= budget }),
  });
  const figures: Figure[] = [
    ...rows.map((row) => figure(row.name, row.gzipped, `${fmt(row.gzipped)} B (${fmt(row.minified)} B minified)`, row.budget, row.kind)),
    figure('CDN one-file ES module dist/cdn/merchant-elements.js', file('merchant-elements.js'), `${fmt(file('merchant-elements.js'))} B`, BUDGETS.all),
    figure('CDN one-file classic script merchant-elements.iife.js', file('merchant-elements.iife.js'), `${fmt(file('merchant-elements.iife.js'))} B`),
    figure('CDN shared chunk (Lit and what all three elements import)', file(cdn.sharedChunk), `${fmt(file(cdn.sharedChunk))} B`),
    figure('French (cdn/fr.js, fetched only for a French page)', file('fr.js'), `${fmt(file('fr.js'))} B`),
  ];
  const over = rows.filter((r) => r.gzipped > r.budget);
  const elements = Object.keys(ELEMENT_MODULES);
  return {
    title: 'Bundle size',
    figures,
    method: [
      'Element bundles: `measureSizes()` of scripts/check-size.ts (what `npm run check:size` runs): each figure built from src in memory by Vite, minified, Lit inside and nothing external (`NODE_ENV=production`, so Lit\'s production build), gzipped at level 9. "One file": one entry as one ES module. The loader\'s figures: the CDN folder\'s files as scripts/build/cdn.ts builds them; "page with <x>" is the sum of what a page showing that element alone fetches, each file gzipped on its own as a server sends it: `loader.js`, the shared chunk and `x.js` (English: `fr.js` is fetched only for French). Targets: `BUDGETS` of the same file, the goals of issue 22; a page showing one element has none since issue 36 (its round trips decide when it is usable: the "Slow phone" section) and is held at its ceiling (`CEILINGS`), the build failing above it.',
      'CDN files: the whole dist/cdn folder built by `buildCdn()` of scripts/build/cdn.ts exactly as `npm run build` writes it (into a temporary directory), gzipped at level 9.',
      'Where the bytes are: each element entry bundled alone with Lit by esbuild (minify, es2022, production conditions), its metafile\'s `bytesInOutput` summed by source folder, the largest files named.',
      'Baseline: bench/fixtures/lit-baseline.ts (a LitElement with styles, one property and a button) through the same `bundle()`; the ratio says how many times Lit-plus-nothing each bundle weighs.',
    ],
    notes: [
      ...over.map((r) => `Over its ${r.kind} in this run: ${r.name}, by ${fmt(r.gzipped - r.budget)} B gzip (${fmt(r.gzipped)} B against ${fmt(r.budget)} B).`),
      `The files of a page with one element: ${elements.map((e) => `<${e}> ${pageFiles(cdn, e).map((f) => `${f} ${fmt(file(f))} B`).join(' + ')}`).join('; ')} (gzip).`,
      ...(await Promise.all(elements.map(async (e) => `Where the bytes of <${e}> alone with Lit are (esbuild, minified): ${await whereTheBytesAre(e)}.`))),
    ],
  };
}
