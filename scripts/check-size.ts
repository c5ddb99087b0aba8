// `npm run check:size`: the size budgets of the elements. Each measured file is built in memory from src
// the way a CDN or an application would ship it (minified, Lit inside, nothing external) and gzipped at
// level 9. Prints a table; exits 1 when any figure is over its budget: its target, or for a figure that has
// none (a page showing one element through the loader), the ceiling that holds it where it stood.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rolldown } from 'vite';
import { MEASURED_ENTRIES, selfContainedBuild } from './build/bundles.js';
import { buildLoaderFiles, ELEMENT_MODULES, type CdnFiles } from './build/cdn.js';

/**
 * Gzipped targets, the goals of issue 22, not numbers to raise when a change needs bytes (a change that needs
 * bytes finds them elsewhere):
 * - `loader`: cdn/loader.js alone;
 * - `all`: the three elements in one file with Lit, in English (what cdn/merchant-elements.js is);
 * - `one`: one element alone in one file with Lit, as an application's bundler makes it of its own entry.
 */
export const BUDGETS = { loader: 1_500, all: 16_000, one: 12_400 } as const;

/**
 * Figures with no target, held where they stand (gzip bytes): the build fails above a ceiling. Lower one when
 * its figure drops (a test fails when a ceiling is left more than 100 B above it); never raise one.
 *
 * The pages showing one element through the loader (loader.js, the shared chunk and that element's module,
 * in English). Issue 22 gave them a target; issue 36 retired it: on a phone network such a page is usable after
 * its round trips, and the bytes still above that target weighed little next to one of them (the "Slow phone"
 * section of `npm run bench` measures the pages). They are held at the figures of that day.
 */
export const CEILINGS: Readonly<Record<string, number>> = {
  'page with <otp-verify>: loader + shared + element': 11_700,
  'page with <pay-by-mobile>: loader + shared + element': 13_552,
  'page with <checkout-button>: loader + shared + element': 10_989,
};

/** What a figure may weigh before the build fails: its target, or its ceiling. */
export const allowed = (row: SizeRow): number => row.budget;

/** One measured figure: a file, or the files a page fetches, summed. */
export interface SizeRow {
  name: string;
  minified: number;
  gzipped: number;
  /** Gzip bytes allowed. */
  budget: number;
  /** Whether `budget` is a target (a goal, of issue 22) or a ceiling (a figure held where it stood). */
  kind: 'target' | 'ceiling';
}

/** gzip -9 of `code`, in bytes. */
export const gzipped = (code: string | Buffer) => gzipSync(code, { level: 9 }).length;

/** Builds one entry into a single minified ES module in memory and returns its code. */
export async function bundle(entry: string): Promise<string> {
  const result = await build(selfContainedBuild(entry, 'es', 'bundle.js'));
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((o) => o.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`${entry}: expected one chunk, got ${chunks.length}`);
  return chunks[0]!.code;
}

/** The files a page showing `element` fetches through the loader, in English. */
export const pageFiles = (cdn: CdnFiles, element: string) => ['loader.js', cdn.sharedChunk, `${element}.js`];

/** Measures every budgeted figure (a production build: Lit's development build is larger). */
export async function measureSizes(): Promise<SizeRow[]> {
  process.env['NODE_ENV'] = 'production';
  const rows: SizeRow[] = [];
  for (const [name, entry] of Object.entries(MEASURED_ENTRIES)) {
    const code = await bundle(entry);
    const all = entry.endsWith('elements/index.ts');
    rows.push({ name: all ? `${name}, one file` : `${name} alone, one file`, minified: Buffer.byteLength(code), gzipped: gzipped(code), budget: all ? BUDGETS.all : BUDGETS.one, kind: 'target' });
  }
  const cdn = await buildLoaderFiles();
  const loader = cdn.files.get('loader.js')!;
  rows.push({ name: 'loader.js', minified: Buffer.byteLength(loader), gzipped: gzipped(loader), budget: BUDGETS.loader, kind: 'target' });
  for (const element of Object.keys(ELEMENT_MODULES)) {
    const files = pageFiles(cdn, element).map((file) => cdn.files.get(file)!);
    const name = `page with <${element}>: loader + shared + element`;
    const ceiling = CEILINGS[name];
    if (ceiling === undefined) throw new Error(`${name} has no ceiling in CEILINGS: set it to the figure the page weighs now`);
    rows.push({
      name,
      minified: files.reduce((sum, code) => sum + Buffer.byteLength(code), 0),
      gzipped: files.reduce((sum, code) => sum + gzipped(code), 0),
      budget: ceiling,
      kind: 'ceiling',
    });
  }
  return rows;
}

/** The table printed by the check: bytes, what is allowed (a target or a ceiling) and headroom (negative when over). */
export function sizeTable(rows: readonly SizeRow[]): string {
  const cells = [
    ['figure (minified, Lit included, English)', 'minified', 'gzip -9', 'allowed', 'headroom'],
    ...rows.map((r) => [r.name, r.minified, r.gzipped, `${r.budget} (${r.kind})`, r.budget - r.gzipped].map(String)),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const over = rows.filter((r) => r.gzipped > allowed(r)).map((r) => `OVER BUDGET: ${r.name} by ${r.gzipped - allowed(r)} bytes over its ${r.kind}`);
  return [line(cells[0]!), ...cells.slice(1).map(line), ...over].join('\n') + '\n';
}

/** Measures, prints the table, and tells whether every figure is within its target or its ceiling. */
export async function checkSizes(): Promise<boolean> {
  const rows = await measureSizes();
  process.stdout.write(sizeTable(rows));
  return rows.every((r) => r.gzipped <= allowed(r));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = (await checkSizes()) ? 0 : 1;
}
