// The package as users receive it: the built package packed by `npm pack` (what `npm publish` uploads) and
// the tarball unpacked into a folder of its own, where only what npm shipped exists. Its links, exports and
// declarations are checked there, never in the checkout, where everything is at hand.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, linkNodeModules } from './built-package.js';

const run = promisify(execFile);

export interface PackedTarball {
  /** The tarball's path. */
  file: string;
  /** The tarball's size in bytes (gzip), and its files' total. */
  size: number;
  unpackedSize: number;
  /** Where the tarball was unpacked: its `package/` folder, with node_modules linked as an install would. */
  dir: string;
  /** Every file of the tarball, package-relative. */
  files: string[];
  remove(): Promise<void>;
}

/**
 * Packs the package in `packageDir` with `npm pack` and unpacks the tarball; its node_modules are the
 * checkout's, and the `extra` packages (name to folder: another unpacked tarball) beside them.
 */
export async function packAndUnpack(packageDir: string, extra?: Record<string, string>): Promise<PackedTarball> {
  const out = await mkdtemp(join(tmpdir(), 'merchant-elements-tarball-'));
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: packageDir });
  const [report] = JSON.parse(stdout) as [{ filename: string; size: number; unpackedSize: number; files: { path: string }[] }];
  const file = join(out, report.filename);
  await run('tar', ['-xzf', file, '-C', out]);
  const dir = join(out, 'package');
  if (extra) await linkNodeModules(dir, extra);
  else await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return {
    file,
    size: report.size,
    unpackedSize: report.unpackedSize,
    dir,
    files: report.files.map((f) => f.path).sort(),
    remove: () => rm(out, { recursive: true, force: true }),
  };
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a markdown text's headings (a repeated heading gets `-1`, `-2`… as on GitHub). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(text!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** The text without fenced code blocks (a `#` comment or `](x)` there is no heading or link). */
const withoutCode = (markdown: string) => markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');

/** Relative link and image targets of a markdown text: `[…](x)`, `![…](x)`, `[…]: x` and `<img src="x">`. */
export function relativeTargets(markdown: string): string[] {
  const text = withoutCode(markdown).replace(/`[^`\n]*`/g, (code) => (code.includes('](') ? '' : code));
  const targets = [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/<img\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('//'));
}

/** Files tracked in the repository at `root` (what a link to "the repository" may lead to), root-relative. */
export async function repositoryFiles(root: string = ROOT): Promise<Set<string>> {
  const { stdout } = await run('git', ['ls-files', '-z'], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  return new Set(stdout.split('\0').filter(Boolean));
}

/** Whether `markdown` shows `target` as a picture (`![…](x)`, `<img src="x">`) rather than a link to follow. */
function isPicture(markdown: string, target: string): boolean {
  const escaped = target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`!\\[[^\\]]*\\]\\(\\s*<?${escaped}`).test(markdown) || markdown.includes(`src="${target}"`);
}

/**
 * Links of the markdown files in `dir` that lead nowhere in the package: a file the package does not hold,
 * or an anchor no heading of the target makes. Only pictures may be elsewhere: one the package leaves out
 * is dead unless `pictures` (the repository) holds it. One line each: `file: target (why)`.
 */
export async function deadLinks(dir: string, markdownFiles: string[], pictures?: { root: string; files: Set<string> }): Promise<string[]> {
  const dead: string[] = [];
  const texts = new Map<string, string>();
  const textOf = async (path: string) => texts.get(path) ?? texts.set(path, await readFile(path, 'utf8')).get(path)!;
  for (const file of markdownFiles) {
    const markdown = await textOf(join(dir, file));
    for (const target of relativeTargets(markdown)) {
      const [path = '', anchor] = decodeURI(target).split('#');
      const resolved = path ? posix.normalize(posix.join(posix.dirname(file), path)) : file;
      const inPackage = !resolved.startsWith('../') && existsSync(join(dir, resolved));
      if (!inPackage) {
        const elsewhere = isPicture(markdown, target) && pictures?.files.has(resolved);
        if (!elsewhere) dead.push(`${file}: ${target} (no ${resolved} in the package)`);
      } else if (anchor && resolved.endsWith('.md') && !anchorsOf(await textOf(join(dir, resolved))).has(anchor)) {
        dead.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
  }
  return dead;
}

/**
 * The declaration files a consumer's TypeScript reads: the `types` of every export, and every `.d.ts` they
 * import, relatively, in turn (a `.d.ts` nothing reaches is never read). Package-relative paths.
 */
export async function reachableDeclarations(dir: string, exportsField: unknown): Promise<string[]> {
  const queue: string[] = [];
  const walk = (value: unknown, key?: string) => {
    if (typeof value === 'string' && key === 'types') queue.push(posix.normalize(value));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(exportsField);
  const seen = new Set<string>();
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file) || !existsSync(join(dir, file))) continue;
    seen.add(file);
    const text = await readFile(join(dir, file), 'utf8');
    for (const [, spec] of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]*)['"]/g)) {
      const target = posix.join(posix.dirname(file), spec!.replace(/\.js$/, ''));
      queue.push(existsSync(join(dir, `${target}.d.ts`)) ? `${target}.d.ts` : posix.join(target, 'index.d.ts'));
    }
  }
  return [...seen].sort();
}

/** Bare module specifiers a declaration file imports (`from 'express'`, `import('zod')`), package names only. */
export function importedPackages(declarations: string): string[] {
  // Comments first: a doc comment saying `came from "Send a new code"` is no import.
  const code = declarations.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const specifiers = [...code.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"./][^'"]*)['"]/g)].map((m) => m[1]!);
  return specifiers.map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
}

/** Whether the package `name`, as installed beside `dir`, ships its own types. */
export async function shipsTypes(dir: string, name: string): Promise<boolean> {
  const pkg = JSON.parse(await readFile(join(dir, 'node_modules', name, 'package.json'), 'utf8'));
  if (pkg.types || pkg.typings) return true;
  if (JSON.stringify(pkg.exports ?? {}).includes('"types"')) return true;
  return existsSync(join(dir, 'node_modules', name, 'index.d.ts'));
}

