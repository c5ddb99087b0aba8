// `npm run docs`: writes every generated part of the docs from its source, so that no figure, table or
// schema in them is typed by hand. Blocks sit between `<!-- generated:NAME … -->` and
// `<!-- /generated:NAME -->` in a Markdown file; the OpenAPI document is a file of its own.
//   tsx scripts/docs/generate.ts          rewrite what is out of date
//   tsx scripts/docs/generate.ts --check  exit 1 naming what is out of date (test/docs/generated.test.ts)
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../../src/protocol/openapi.js';
import { defaultsTable, webhookDelivery } from './defaults.js';
import { buildManifest, elementsReference } from './elements.js';
import { errorCodesTable } from './error-codes.js';
import { openApiReference } from './openapi-reference.js';
import { serverApiTable } from './server-api.js';
import { renderStateTables } from './state-table.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A generated block: the Markdown file it lives in, and its text. */
interface Block {
  doc: string;
  make(): Promise<string> | string;
}

/** Every generated block, by name. */
export const BLOCKS: Record<string, Block> = {
  elements: { doc: 'docs/elements.md', make: async () => elementsReference(await buildManifest()) },
  'error-codes': { doc: 'docs/troubleshooting.md', make: errorCodesTable },
  defaults: { doc: 'docs/operations.md', make: defaultsTable },
  'webhook-delivery': { doc: 'docs/webhooks.md', make: webhookDelivery },
  'server-api': { doc: 'docs/server-api.md', make: serverApiTable },
  'openapi-reference': { doc: 'docs/openapi.md', make: openApiReference },
  'state-table': { doc: 'docs/design.md', make: renderStateTables },
};

/** The OpenAPI document's file and text (the server package's version). */
export async function openApiFile(): Promise<{ path: string; text: string }> {
  const path = 'packages/merchant-elements-server/openapi.json';
  const { version } = JSON.parse(await readFile(`${ROOT}packages/merchant-elements-server/package.json`, 'utf8')) as { version: string };
  return { path, text: `${JSON.stringify(openApiDocument(version), null, 2)}\n` };
}

/** `markdown` with block `name`'s text replaced by `text`; throws when its markers are missing. */
export function withBlock(markdown: string, name: string, text: string): string {
  const start = new RegExp(`<!-- generated:${name}\\b[^>]*-->\\n`);
  const end = `<!-- /generated:${name} -->`;
  const open = start.exec(markdown);
  const close = markdown.indexOf(end);
  if (!open || close < open.index) throw new Error(`no <!-- generated:${name} --> … ${end} block`);
  const from = open.index + open[0].length;
  return `${markdown.slice(0, from)}\n${text.trim()}\n\n${markdown.slice(close)}`;
}

/** Each file with its current text and the text it should have. */
export async function generated(): Promise<{ path: string; current: string; next: string }[]> {
  const byDoc = new Map<string, string>();
  const current = new Map<string, string>();
  for (const [name, block] of Object.entries(BLOCKS)) {
    if (!current.has(block.doc)) current.set(block.doc, await readFile(`${ROOT}${block.doc}`, 'utf8'));
    byDoc.set(block.doc, withBlock(byDoc.get(block.doc) ?? current.get(block.doc)!, name, await block.make()));
  }
  const api = await openApiFile();
  const apiNow = await readFile(`${ROOT}${api.path}`, 'utf8').catch(() => '');
  return [
    ...[...byDoc].map(([path, next]) => ({ path, current: current.get(path)!, next })),
    { path: api.path, current: apiNow, next: api.text },
  ];
}

async function run(): Promise<number> {
  const stale = (await generated()).filter((f) => f.current !== f.next);
  if (process.argv.includes('--check')) {
    for (const f of stale) process.stderr.write(`${f.path} is out of date: run \`npm run docs\`\n`);
    return stale.length ? 1 : 0;
  }
  for (const f of stale) {
    await writeFile(`${ROOT}${f.path}`, f.next);
    process.stdout.write(`wrote ${f.path}\n`);
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await run();
}
