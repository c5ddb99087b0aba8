// `npm run check:size`: the size budgets of the elements. Each measured bundle is built in memory from src
// the way a CDN or an application would ship it (minified, Lit inside, nothing external) and gzipped at
// level 9. Prints a table; exits 1 when any bundle is over its budget.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rolldown } from 'vite';
import { MEASURED_ENTRIES, selfContainedBuild } from './build/bundles.js';

/**
 * Gzipped bytes allowed: all three elements with Lit, and any one element alone with Lit. Raised on 2026-11-24
 * from 16,550 and 11,900: by 600 and 350 B for the customer's side (the pending ways out in English and French,
 * the popup note, the otp links' layout) and by 150 B each for the console hint of ORIGIN_NOT_ALLOWED (about
 * 95 B gzip: the page's origin and the fix, in proxy-client.ts).
 */
export const BUDGETS = { all: 17_300, one: 12_400 } as const;

/** One measured bundle. */
export interface SizeRow {
  name: string;
  minified: number;
  gzipped: number;
  budget: number;
}

/** Builds one entry into a single minified ES module in memory and returns its code. */
export async function bundle(entry: string): Promise<string> {
  const result = await build(selfContainedBuild(entry, 'es', 'bundle.js'));
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((o) => o.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`${entry}: expected one chunk, got ${chunks.length}`);
  return chunks[0]!.code;
}

/** Measures every budgeted bundle (a production build: Lit's development build is larger). */
export async function measureSizes(): Promise<SizeRow[]> {
  process.env['NODE_ENV'] = 'production';
  const rows: SizeRow[] = [];
  for (const [name, entry] of Object.entries(MEASURED_ENTRIES)) {
    const code = await bundle(entry);
    rows.push({
      name,
      minified: Buffer.byteLength(code),
      gzipped: gzipSync(code, { level: 9 }).length,
      budget: entry.endsWith('elements/index.ts') ? BUDGETS.all : BUDGETS.one,
    });
  }
  return rows;
}

/** The table printed by the check: bytes, budget and headroom (negative when over). */
export function sizeTable(rows: readonly SizeRow[]): string {
  const cells = [
    ['bundle (minified, Lit included)', 'minified', 'gzip -9', 'budget', 'headroom'],
    ...rows.map((r) => [r.name, r.minified, r.gzipped, r.budget, r.budget - r.gzipped].map(String)),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const over = rows.filter((r) => r.gzipped > r.budget).map((r) => `OVER BUDGET: ${r.name} by ${r.gzipped - r.budget} bytes`);
  return [line(cells[0]!), ...cells.slice(1).map(line), ...over].join('\n') + '\n';
}

/** Measures, prints the table, and tells whether every bundle is within its budget. */
export async function checkSizes(): Promise<boolean> {
  const rows = await measureSizes();
  process.stdout.write(sizeTable(rows));
  return rows.every((r) => r.gzipped <= r.budget);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = (await checkSizes()) ? 0 : 1;
}
