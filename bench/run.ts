// `npm run bench`: speed and size figures of merchant-elements, each measured side by side with a baseline
// in the same run. Prints a markdown table and writes docs/benchmarks.md (date, machine, how each figure
// was measured). Not part of `npm test`. `npm run bench -- --only sizes,render` runs some sections and
// writes nothing (for working on the bench itself); with `--write` too, it rewrites those sections of
// docs/benchmarks.md and keeps the others as they were (the machine is shared: one section at a time).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { document, machine, resultsTable, writeDocument, type SectionResult } from './lib/report.js';
import { cliStart } from './sections/cli-start.js';
import { firstRender } from './sections/first-render.js';
import { fanOut } from './sections/fan-out.js';
import { proxyOverhead } from './sections/proxy-overhead.js';
import { scale } from './sections/scale.js';
import { scaleFleet } from './sections/scale-fleet.js';
import { slowPhone } from './sections/slow-phone.js';
import { bundleSizes } from './sections/sizes.js';
import { soak, startSoakServers } from './sections/soak.js';

const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const SECTIONS = ['sizes', 'overhead', 'fanout', 'render', 'phone', 'soak', 'scale', 'fleet', 'cli'] as const;
type SectionName = (typeof SECTIONS)[number];

const { values } = parseArgs({ options: { only: { type: 'string' }, write: { type: 'boolean' } } });
const only = values.only?.split(',').map((s) => s.trim()) as SectionName[] | undefined;
const unknown = only?.filter((s) => !SECTIONS.includes(s));
if (unknown?.length) throw new Error(`unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
const wanted = (name: SectionName) => !only || only.includes(name);

const started = Date.now();
const header = { machine: machine() };
const log = (line: string) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
log(`machine: ${header.machine}`);

const cdnDir = await mkdtemp(join(tmpdir(), 'bench-cdn-'));
// Started now, idle until the soak: a fresh server's memory takes ~20 s to settle.
const soakServers = wanted('soak') ? startSoakServers() : null;
soakServers?.catch(() => undefined); // a failed start is reported by the soak itself
const sections: (SectionResult & { run: string })[] = [];
const run = async (name: SectionName, title: string, section: () => Promise<SectionResult>) => {
  if (!wanted(name)) return;
  log(`${title}…`);
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const load = loadavg().map((l) => l.toFixed(2)).join(', ');
  const result = await section();
  sections.push({ ...result, run: `Run of ${date}; load average at its start ${load} (1, 5, 15 min).` });
};
try {
  // The size section builds the CDN folder the render and slow-phone sections serve.
  await run('sizes', 'bundle sizes', () => bundleSizes(cdnDir));
  if ((wanted('render') || wanted('phone')) && !wanted('sizes')) await bundleSizes(cdnDir);
  await run('overhead', 'proxy overhead (autocannon)', () => proxyOverhead(log));
  await run('fanout', 'status-relay fan-out', () => fanOut(log));
  await run('render', 'element first render (Chromium)', () => firstRender(cdnDir));
  await run('phone', 'slow phone (Chromium, emulated networks)', () => slowPhone(cdnDir, log));
  await run('soak', 'soak', () => soak(log, soakServers!));
  await run('scale', 'scale: a flash sale on one instance', () => scale(log));
  await run('fleet', 'scale: a flash sale on three instances', () => scaleFleet(log));
  await run('cli', 'CLI start (help, against every module imported first)', cliStart);
} finally {
  await rm(cdnDir, { recursive: true, force: true });
  await soakServers?.then(async ({ sandbox, merchant }) => {
    await merchant.stop();
    await sandbox.stop();
  });
}

const runtimeSec = (Date.now() - started) / 1000;
const notes = sections.flatMap((s) => s.notes.map((n) => `- ${s.title}: ${n}`));
process.stdout.write(`\n${resultsTable(sections)}\n${notes.join('\n')}\n\nTotal runtime ${runtimeSec.toFixed(0)} s.\n`);
if (!only || values.write) {
  // Some sections: the others stay as the document has them. A whole run writes every section afresh.
  const old = only ? await readFile(DOC, 'utf8').catch(() => '') : '';
  await writeDocument(DOC, document(sections, header, old));
  log(`wrote ${DOC}`);
}
// Chromium, undici and the servers' sockets are closed; anything left (a keep-alive timer) must not hold us.
process.exit(0);
