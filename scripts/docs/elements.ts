// The element reference of docs/elements.md (attributes, events, parts, CSS custom properties, custom
// states, slots), generated from the custom-elements manifest, which the analyzer builds from the elements'
// JSDoc. `npm run docs` writes it (scripts/docs/generate.ts).
import { fileURLToPath } from 'node:url';
import { cli } from '@custom-elements-manifest/analyzer/cli.js';

interface Named {
  name: string;
  description?: string;
  summary?: string;
}
interface Attribute extends Named {
  type?: { text: string };
  default?: string;
}
interface Declaration extends Named {
  tagName?: string;
  customElement?: boolean;
  attributes?: Attribute[];
  events?: Named[];
  cssParts?: Named[];
  cssProperties?: (Named & { default?: string })[];
  cssStates?: Named[];
  slots?: Named[];
}
export interface Manifest {
  modules: { declarations?: Declaration[] }[];
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Builds the manifest in memory, with the project's analyzer config (nothing is written). */
export async function buildManifest(): Promise<Manifest> {
  return (await cli({ argv: ['analyze', '--quiet'], cwd: root, noWrite: true })) as Manifest;
}

const cell = (text: string | undefined) => (text ?? '').replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
const code = (text: string) => `\`${text}\``;

function table(head: string[], rows: string[][]): string {
  if (rows.length === 0) return '';
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function section(title: string, body: string): string {
  return body ? `**${title}**\n\n${body}\n` : '';
}

/** The markdown of one element. */
export function elementMarkdown(d: Declaration): string {
  const defaultOf = (a: Attribute) => (a.default === 'DEFAULT_PROXY_PATH' ? code("'/merchant-elements'") : a.default ? code(a.default) : '');
  return [
    `### \`<${d.tagName}>\``,
    '',
    cell(d.summary ?? d.description),
    '',
    section('Attributes', table(['attribute', 'type', 'default', 'description'], (d.attributes ?? []).map((a) => [code(a.name), cell(a.type?.text), defaultOf(a), cell(a.description)]))),
    section('Events', table(['event', 'detail and meaning'], (d.events ?? []).map((e) => [code(e.name), cell(e.description)]))),
    section('Parts (`::part()`)', table(['part', 'description'], (d.cssParts ?? []).map((p) => [code(p.name), cell(p.description)]))),
    section('CSS custom properties', table(['property', 'description'], (d.cssProperties ?? []).map((p) => [code(p.name), cell(p.description)]))),
    section('States (`:state()` and the `state` property)', table(['state', 'meaning'], (d.cssStates ?? []).map((s) => [code(s.name), cell(s.description)]))),
    section('Slots', table(['slot', 'description'], (d.slots ?? []).map((s) => [s.name ? code(s.name) : '(default)', cell(s.description)]))),
  ]
    .filter((part, i, all) => part !== '' || all[i - 1] !== '')
    .join('\n')
    .trim();
}

/** Every element's reference, in the order the docs introduce them. */
export function elementsReference(manifest: Manifest): string {
  const elements = manifest.modules
    .flatMap((m) => m.declarations ?? [])
    .filter((d) => d.customElement && d.tagName)
    .sort((a, b) => ORDER.indexOf(a.tagName!) - ORDER.indexOf(b.tagName!));
  return elements.map(elementMarkdown).join('\n\n');
}

const ORDER = ['otp-verify', 'pay-by-mobile', 'checkout-button'];
