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

/** One section as the document holds it: its rows of the results table and its block of how it was measured. */
interface StoredSection {
  title: string;
  rows: string[];
  block: string;
}

/** A fresh section as the document holds it; `run` says when and under what load it ran. */
function stored(section: SectionResult & { run: string }): StoredSection {
  const notes = section.notes.length ? `\n\nThis run:\n\n${section.notes.map((n) => `- ${n}`).join('\n')}` : '';
  return {
    title: section.title,
    rows: resultsTable([section]).split('\n').slice(2).filter(Boolean),
    block: `### ${section.title}\n\n${section.run}\n\n${section.method.map((m) => `- ${m}`).join('\n')}${notes}`,
  };
}

/**
 * The sections of a document this module wrote: rows by the title in their first cell, blocks by their
 * heading. A block from before sections named their run is given the run of the old document's header.
 */
function parseSections(doc: string): StoredSection[] {
  const results = doc.split('## Results')[1]?.split('## How each figure was measured')[0] ?? '';
  const methods = doc.split('## How each figure was measured')[1]?.split(KEPT_MARKER)[0] ?? '';
  const oldRun = /comes from the run of (\S+),/.exec(doc)?.[1];
  const sections = new Map<string, StoredSection>();
  for (const line of results.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| section |'))) {
    const title = /^\| ((?:[^|\\]|\\.)*) \|/.exec(line)![1]!;
    const section = sections.get(title) ?? { title, rows: [], block: '' };
    section.rows.push(line);
    sections.set(title, section);
  }
  for (const block of methods.split(/^(?=### )/m).filter((b) => b.startsWith('### '))) {
    const title = block.slice(4, block.indexOf('\n'));
    const body = block.trimEnd();
    const dated = /^Run of /m.test(body) || !oldRun ? body : body.replace(/\n\n/, `\n\nRun of ${oldRun}.\n\n`);
    sections.set(title, { ...(sections.get(title) ?? { title, rows: [] }), block: dated });
  }
  return [...sections.values()];
}

/**
 * The whole of docs/benchmarks.md: the `fresh` sections of this run, and the sections of `old` (the
 * document as it was) this run did not measure, kept as they were and where they were.
 */
export function document(fresh: readonly (SectionResult & { run: string })[], header: { machine: string }, old = ''): string {
  const byTitle = new Map(parseSections(old).map((s) => [s.title, s]));
  for (const section of fresh) byTitle.set(section.title, stored(section));
  const sections = [...byTitle.values()];
  return `# Benchmarks

Written by \`npm run bench\` (bench/run.ts). Each section below names the run its figures come from, and
every ratio is against a baseline measured side by side in that same run. Regenerate with \`npm run bench\`,
or some sections with \`npm run bench -- --only sizes,scale --write\`, which keeps the others as they were;
it is not part of \`npm test\`.

Machine (the latest run): ${header.machine}. The cores are shared with other work, so absolute figures move
between runs; the same-run ratios are the figures to compare.

## Results

| section | figure | measured | baseline (same run) | ratio | target | met |
|---|---|---|---|---|---|---|
${sections.flatMap((s) => s.rows).join('\n')}

## How each figure was measured

${sections.map((s) => s.block).join('\n\n')}
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
