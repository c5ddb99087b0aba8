// The code blocks of the project's Markdown, as the tests read them. Every fenced block says in its info
// string what becomes of it (docs/development.md, "Snippets that run"):
//
//   ```php file=index.php     part of a file a guide's test writes and runs (blocks naming one file are joined)
//   ```sh run                 shell commands a guide's test runs to completion, in order
//   ```sh run=proxy           a long-running command (a server) a guide's test starts in a terminal of its own
//   ```tsx check              a fragment a test type-checks, or compares with what the code does
//   ```sh not-run             deliberately not run (an install from the registry, another tool's config, a wire example)
//   ```text                   a picture or an output, not code
//
// Renderers show the first word as the language and ignore the rest, so readers never see the markers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root. */
export const ROOT = new URL('../../', import.meta.url).pathname;

/** The product's Markdown: the README and every page of docs/. */
export const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository (`docs/php.md`). */
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The language, the info string's first word (`''` when none). */
  lang: string;
  /** The info string's other words: `file=index.php` → `{ file: 'index.php' }`, `run` → `{ run: true }`. */
  attrs: Record<string, string | true>;
  /** The block's text, its fence's indentation removed, ending with a newline. */
  code: string;
}

/** Reads a Markdown file of the repository. */
export function readDoc(doc: string): string {
  return readFileSync(join(ROOT, doc), 'utf8');
}

/** Every fenced block (``` or ~~~, at any indentation, as in list items) of `markdown`. */
export function codeBlocks(markdown: string, doc: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = new RegExp(`^ *${fence[0]}{${fence.length},}\\s*$`).exec(lines[j]!);
      if (close) break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
    }
    if (j === lines.length) throw new Error(`${doc}:${i + 1}: a code block is never closed`);
    const [lang = '', ...words] = info.trim().split(/\s+/).filter(Boolean);
    const attrs: Record<string, string | true> = {};
    for (const word of words) {
      const eq = word.indexOf('=');
      if (eq < 0) attrs[word] = true;
      else attrs[word.slice(0, eq)] = word.slice(eq + 1);
    }
    blocks.push({ doc, line: i + 1, lang, attrs, code: body.length ? `${body.join('\n')}\n` : '' });
    i = j;
  }
  return blocks;
}

/** The code blocks of a repository Markdown file. */
export function blocksOf(doc: string): CodeBlock[] {
  return codeBlocks(readDoc(doc), doc);
}

/** What a block's markers say becomes of it, or the problem with them. */
export function kindOf(block: CodeBlock): 'file' | 'run' | 'terminal' | 'check' | 'not-run' | 'picture' | { problem: string } {
  const markers = Object.keys(block.attrs);
  if (block.lang === '') return { problem: 'has no language (write `text` for a picture or an output)' };
  if (block.lang === 'text') return markers.length === 0 ? 'picture' : { problem: '`text` blocks take no marker' };
  if (markers.length !== 1) {
    return { problem: `needs exactly one of file=NAME, run, run=NAME, check, not-run (has ${markers.join(', ') || 'none'})` };
  }
  const [marker] = markers as [string];
  const value = block.attrs[marker]!;
  if (marker === 'file' && typeof value === 'string' && value) return 'file';
  if (marker === 'run') return value === true ? 'run' : 'terminal';
  if ((marker === 'check' || marker === 'not-run') && value === true) return marker;
  return { problem: `unknown marker ${marker}${value === true ? '' : `=${value}`}` };
}

/** `doc`'s one `check` block in `lang`; throws unless there is exactly one. */
export function checkBlock(doc: string, lang: string): CodeBlock {
  const found = blocksOf(doc).filter((b) => b.lang === lang && b.attrs.check === true);
  if (found.length !== 1) throw new Error(`${doc} has ${found.length} \`${lang} check\` blocks, not one`);
  return found[0]!;
}

/** The text of `file` as a doc's `file=` blocks give it, joined in order; throws when no block names it. */
export function fileOf(doc: string, file: string): string {
  const parts = blocksOf(doc).filter((b) => b.attrs.file === file);
  if (parts.length === 0) throw new Error(`${doc} has no block for ${file}`);
  return parts.map((b) => b.code).join('\n');
}

/**
 * The headings' anchors of a Markdown text, as GitHub makes them: lower case, punctuation but `-` and `_`
 * dropped, spaces to `-`, a repeat suffixed `-1`, `-2`… (inline code and links keep their text).
 */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^ *(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  // Explicit anchors: <a id="…"> or <a name="…">.
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

/** Every link and image target of a Markdown text, outside code, with its line. */
export function linksOf(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^ *(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    if (fenced) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1]!, line: i + 1 });
    for (const m of prose.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)) links.push({ target: m[1]!, line: i + 1 });
  });
  return links;
}
