import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';

/** One line of the results table. */
export interface Figure {
  figure: string;
  /** What was measured, with its unit. */
  value: string;
  /** The same-run baseline the ratio is taken against, when there is one. */
  baseline?: string;
  ratio?: string;
  target?: string;
  /** Whether the target was met; absent when the figure has no target. */
  met?: boolean;
}

/** What a bench section hands back: its figures, how they were measured, and what to know about them. */
export interface SectionResult {
  title: string;
  figures: Figure[];
  /** How each figure was measured (one bullet each). */
  method: string[];
  /** Observations of this run (what a missed target is due to, oddities seen). */
  notes: string[];
}

/** The machine, as the report's header describes it. */
export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const load = loadavg().map((l) => l.toFixed(2)).join(', ');
  const gib = (totalmem() / 2 ** 30).toFixed(1);
  return `${cpus().length} CPUs (nproc; ${cpu}), ${gib} GiB memory, Node ${process.version}, ${process.platform}/${process.arch}; load average at start ${load} (1, 5, 15 min)`;
}

const escape = (cell: string) => cell.replace(/\|/g, '\\|');

/** The markdown results table of every section. */
export function resultsTable(sections: readonly SectionResult[]): string {
  const head = '| section | figure | measured | baseline (same run) | ratio | target | met |\n|---|---|---|---|---|---|---|';
  const rows = sections.flatMap((section) =>
    section.figures.map((f) =>
      [section.title, f.figure, f.value, f.baseline ?? '', f.ratio ?? '', f.target ?? '', f.met === undefined ? '' : f.met ? 'yes' : '**no**']
        .map(escape)
        .join(' | '),
    ),
  );
  return `${head}\n${rows.map((r) => `| ${r} |`).join('\n')}\n`;
}

/** The whole of docs/benchmarks.md. */
export function document(sections: readonly SectionResult[], header: { date: string; machine: string; runtimeSec: number }): string {
  const methods = sections
    .map((s) => `### ${s.title}\n\n${s.method.map((m) => `- ${m}`).join('\n')}${s.notes.length ? `\n\nThis run:\n\n${s.notes.map((n) => `- ${n}`).join('\n')}` : ''}`)
    .join('\n\n');
  return `# Benchmarks

Written by \`npm run bench\` (bench/run.ts); every figure below comes from the run of ${header.date}, and
every ratio is against a baseline measured side by side in that same run. Regenerate with \`npm run bench\`
(about ${Math.ceil(header.runtimeSec / 60)} minutes); it is not part of \`npm test\`.

Machine: ${header.machine}. The cores are shared with other work, so absolute figures move between runs;
the same-run ratios are the figures to compare.

## Results

${resultsTable(sections)}
## How each figure was measured

${methods}
`;
}

/** Writes `text` to `path`, creating its directory. */
export async function writeDocument(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // Figures measured by other scripts (`npm run measure:install`) follow KEPT_MARKER; a new run keeps them.
  const old = await readFile(path, 'utf8').catch(() => '');
  const kept = old.includes(KEPT_MARKER) ? old.slice(old.indexOf(KEPT_MARKER)) : '';
  await writeFile(path, kept ? `${text.trimEnd()}\n\n${kept}` : text);
}

/** Where docs/benchmarks.md's hand-kept sections begin: `npm run bench` rewrites only what comes before. */
export const KEPT_MARKER = '<!-- measured apart from npm run bench: kept when it rewrites this file -->';
