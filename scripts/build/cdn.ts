// dist/cdn: the files a page loads with a script tag, built from src with Lit inside, minified.
//
// - loader.js, the one script of a page, and what it imports on demand: otp-verify.js, pay-by-mobile.js and
//   checkout-button.js (one module per element), the chunk all three share (shared.js: Lit
//   and most of src/elements/shared, split once), and fr.js (the French words; a classic script as well as a module, so
//   that it also translates the one-file builds);
// - merchant-elements.js (ES module) and merchant-elements.iife.js (classic script): all three elements in
//   one file, English, for a page that wants one file.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, type InlineConfig, type Plugin, type Rolldown } from 'vite';
import { ROOT, selfContainedBuild } from './bundles.js';

const src = (path: string) => `${ROOT}src/${path}`;

/** The loader's element modules by file name (without `.js`): each element's own entry. */
export const ELEMENT_MODULES = {
  'otp-verify': src('elements/otp-verify/index.ts'),
  'pay-by-mobile': src('elements/pay-by-mobile/index.ts'),
  'checkout-button': src('elements/checkout-button/index.ts'),
} as const;

/** An element module's file name. */
export type ElementModule = keyof typeof ELEMENT_MODULES;

/** The CDN files by name (relative to dist/cdn), and the shared chunk's name among them. */
export interface CdnFiles {
  files: Map<string, string>;
  sharedChunk: string;
}

const ONE_FILE_ENTRY = src('elements/index.ts');

/** Runs one in-memory build and returns its chunks by file name. */
async function chunksOf(config: InlineConfig): Promise<Map<string, string>> {
  const result = await build({ ...config, build: { ...config.build, write: false } });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  return new Map(outputs.flatMap((o) => o.output).flatMap((o) => (o.type === 'chunk' ? [[o.fileName, o.code] as const] : [])));
}

/**
 * A lib build of `entries` (by output name) with the settings of the one-file builds (self-contained,
 * minified), its output altered by `output`; `exports: false` drops what the entries export.
 */
function libBuild(entries: Record<string, string>, format: 'es' | 'iife', output: Rolldown.OutputOptions, exports = true): InlineConfig {
  const config = selfContainedBuild(Object.values(entries)[0]!, format, 'unused.js');
  const { name } = config.build!.lib as { name?: string };
  const rolldown = config.build!.rolldownOptions!;
  return {
    ...config,
    build: {
      ...config.build,
      lib: { entry: entries, formats: [format], name, fileName: (_format, entry) => `${entry}.js` },
      rolldownOptions: { ...rolldown, ...(exports ? {} : { preserveEntrySignatures: false }), output: { ...rolldown.output, ...output } },
    },
  };
}

/**
 * The three element modules and their one shared chunk, in two passes. The first splits the three entries:
 * what all three import (Lit, most of src/elements/shared) goes to the shared chunk, and what two of them
 * share (the status stream, the countdown) to chunks of its own. The second bundles each element's module
 * again with those pair chunks inside it, the shared chunk left external: a page fetches the loader, the
 * shared chunk and its element's module, none of which carries code its element does not run. The price is
 * paid by a page showing two elements that share a pair module: it fetches two copies (for <pay-by-mobile>
 * and <checkout-button> together, the status stream's, about 650 B gzip more than one shared copy), with no
 * state between them.
 */
async function elementModules(): Promise<CdnFiles> {
  const split = await chunksOf(
    libBuild(ELEMENT_MODULES, 'es', {
      codeSplitting: { groups: [{ name: 'shared', minShareCount: Object.keys(ELEMENT_MODULES).length }] },
      // Named by role, not by content: a page names it in a `modulepreload` hint (docs/elements.md).
      chunkFileNames: '[name].js',
    }),
  );
  const shared = [...split.keys()].filter((name): boolean => name == 'shared.js');
  if (shared.length !== 1) throw new Error(`the element modules should share one chunk, got ${shared.join(', ') || 'none'}`);
  const sharedChunk = shared[0]!;
  const files = new Map([[sharedChunk, split.get(sharedChunk)!]]);
  for (const element of Object.keys(ELEMENT_MODULES)) files.set(`${element}.js`, await withPairChunks(`${element}.js`, split, sharedChunk));
  return { files, sharedChunk };
}

/** `file` of the first pass bundled with the chunks it imports, apart from the shared chunk (left as it is). */
async function withPairChunks(file: string, split: Map<string, string>, sharedChunk: string): Promise<string> {
  // An id of the first pass's output, wherever Vite resolved it from (an entry, relative to the root).
  const ID = '\0cdn:';
  const inMemory: Plugin = {
    name: 'merchant-elements:cdn-pass-two',
    enforce: 'pre',
    resolveId: (source) => {
      const name = /(?:cdn-pass-two:|^\.\/)([^/]+)$/.exec(source)?.[1];
      if (name === sharedChunk) return { id: `./${sharedChunk}`, external: true };
      return name && split.has(name) ? ID + name : null;
    },
    load: (id) => (id.startsWith(ID) ? split.get(id.slice(ID.length))! : null),
  };
  const config = libBuild({ [file.replace(/\.js$/, '')]: `cdn-pass-two:${file}` }, 'es', { codeSplitting: false });
  const chunks = await chunksOf({ ...config, plugins: [inMemory] });
  return chunks.get(file)!;
}

/**
 * fr.js: the French table registered by its module, no export, as an IIFE (a classic script and a module
 * alike). Its registering code is its own copy: the table it registers into is the page's one global table.
 */
async function frenchScript(): Promise<string> {
  const chunks = await chunksOf(libBuild({ fr: src('elements/translations/fr.ts') }, 'iife', { codeSplitting: false }, false));
  return chunks.get('fr.js')!;
}

/** loader.js, told the shared chunk's name. */
async function loader(sharedChunk: string): Promise<string> {
  const config = libBuild({ loader: src('cdn/loader.ts') }, 'es', { codeSplitting: false });
  const chunks = await chunksOf({ ...config, define: { SHARED_CHUNK: JSON.stringify(sharedChunk) } });
  return chunks.get('loader.js')!;
}

// The builds run one after another: Vite's builds share process-wide state (NODE_ENV, for one).

/** The loader and the files it loads (no one-file build). */
export async function buildLoaderFiles(): Promise<CdnFiles> {
  const modules = await elementModules();
  modules.files.set('fr.js', await frenchScript());
  modules.files.set('loader.js', await loader(modules.sharedChunk));
  return modules;
}

/** The one-file builds: merchant-elements.js and merchant-elements.iife.js. */
export async function buildOneFiles(): Promise<Map<string, string>> {
  const esm = await chunksOf(selfContainedBuild(ONE_FILE_ENTRY, 'es', 'merchant-elements.js'));
  const iife = await chunksOf(selfContainedBuild(ONE_FILE_ENTRY, 'iife', 'merchant-elements.iife.js'));
  return new Map([...esm, ...iife]);
}

/** Builds every file of dist/cdn, and writes them into `outDir` when given. */
export async function buildCdn(outDir?: string): Promise<CdnFiles> {
  const loaderFiles = await buildLoaderFiles();
  const oneFiles = await buildOneFiles();
  const files = new Map([...loaderFiles.files, ...oneFiles]);
  if (outDir) {
    await mkdir(outDir, { recursive: true });
    await Promise.all([...files].map(([name, code]) => writeFile(join(outDir, name), code)));
  }
  return { files, sharedChunk: loaderFiles.sharedChunk };
}
