// `npm run check:package` (after `npm run build`): publint has nothing to say, and `npm pack` would publish
// what users need and nothing else. `--dir DIR` checks another package directory. Exits 1 with the reasons.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

/**
 * The only files a published package may hold (npm adds package.json, the README and the licence itself):
 * code, its types, the elements' manifest, and the guides the README links to, as text (docs/*.md), so that
 * every link of the README leads somewhere on npm and in node_modules. Their pictures and the example shops
 * stay in the repository: an application's install carries none of them.
 */
const PUBLISHED = /^(package\.json|README\.md|docs\/[\w-]+\.md|openapi\.json|LICENSE(\.\w+)?|custom-elements\.json|bin\/merchant-elements(-server)?\.js|dist\/.+\.(js|d\.ts))$/;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** The package files `package.json` points at: `exports` targets, `main`, `module`, `types`, `bin`, `customElements`. */
export function referencedFiles(pkg: Record<string, Json>): string[] {
  const found = new Set<string>();
  const walk = (value: Json | undefined) => {
    // A subpath pattern (`./dist/cdn/*`) names no one file.
    if (typeof value === 'string') {
      if (!value.includes('*')) found.add(posix.normalize(value));
    }
    else if (value && typeof value === 'object') for (const v of Object.values(value)) walk(v);
  };
  for (const field of ['exports', 'main', 'module', 'types', 'bin', 'customElements']) walk(pkg[field]);
  return [...found];
}

/** What `npm pack` would publish from `dir`, as package-relative paths. */
export async function packedFiles(dir: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir });
  const [report] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  return report.files.map((f) => f.path).sort();
}

/** What the package in `dir` would publish, and the reasons it is not fit to (none when it is). */
export async function checkPackage(dir: string): Promise<{ files: string[]; problems: string[] }> {
  const pkg = JSON.parse(await readFile(`${dir}/package.json`, 'utf8')) as Record<string, Json>;
  const problems: string[] = [];
  const files = await packedFiles(dir);
  const packed = new Set(files);

  // publint reads the very files npm would pack (rather than packing a second time).
  const contents = await Promise.all(
    files.map(async (name) => ({ name, data: /\.png$/.test(name) ? '' : await readFile(`${dir}/${name}`, 'utf8') })),
  );
  const { messages } = await publint({ pkgDir: dir, level: 'suggestion', pack: { files: contents.map((f) => ({ ...f, name: `${dir}/${f.name}` })) } });
  for (const m of messages) problems.push(`publint ${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`);

  for (const f of files.filter((f) => !PUBLISHED.test(f))) problems.push(`packed but not for users: ${f}`);
  for (const f of referencedFiles(pkg).filter((f) => !packed.has(f))) problems.push(`package.json points at ${f}, which is not packed`);
  for (const { name, data } of contents) {
    const map = /\/\/# sourceMappingURL=(\S+)/.exec(data)?.[1];
    if (map && !map.startsWith('data:') && !packed.has(posix.join(posix.dirname(name), map))) {
      problems.push(`${name} names a source map that is not packed: ${map}`);
    }
  }
  return { files, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { dir: { type: 'string' } } });
  const dir = resolve(values.dir ?? dirname(dirname(fileURLToPath(import.meta.url))));
  const { problems } = await checkPackage(dir);
  if (problems.length === 0) process.stdout.write(`Package ${dir} is fit to publish.\n`);
  else {
    const hint = existsSync(`${dir}/dist`) ? '' : ' (no dist/: run npm run build first)';
    process.stderr.write(`Package ${dir} is not fit to publish${hint}:\n  ${problems.join('\n  ')}\n`);
  }
  process.exitCode = problems.length === 0 ? 0 : 1;
}
