import { build, type Rolldown } from 'vite';
import { ROOT, selfContainedBuild } from '../../scripts/build/bundles.js';
import { buildLoaderFiles } from '../../scripts/build/cdn.js';

/**
 * The loader's files of the package's `cdn/` folder (loader.js, the three element modules, their shared
 * chunk, fr.js), built in memory with the package build's configuration, so `npm start` needs no build
 * step. Resolves them by file name.
 */
export async function buildCdnFolder(): Promise<Map<string, string>> {
  return (await buildLoaderFiles()).files;
}

let folder: Promise<Map<string, string>> | undefined;

/**
 * The CDN folder of this process, built on first use and kept: only the CDN page asks for it, and the build
 * takes seconds of CPU (built at every start, it slowed every demo a test suite starts, CDN page or not).
 * A failed build is forgotten, so the next request tries again.
 */
export function cdnFolder(): Promise<Map<string, string>> {
  folder ??= buildCdnFolder().catch((err: unknown) => {
    folder = undefined;
    throw err;
  });
  return folder;
}

/** File name of the classic-script CDN build (DESIGN: `dist/cdn/merchant-elements.iife.js`). */
export const CDN_IIFE_FILE = 'merchant-elements.iife.js';

/**
 * Builds the IIFE CDN bundle (all three elements, Lit inside, minified) in memory with the same
 * configuration as the package build, so `npm start` needs no build step. Resolves the code.
 */
export async function buildCdnIife(): Promise<string> {
  const result = await build(selfContainedBuild(`${ROOT}src/elements/index.ts`, 'iife', CDN_IIFE_FILE));
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunk = outputs.flatMap((o) => o.output).find((o) => o.type === 'chunk' && o.fileName === CDN_IIFE_FILE);
  if (!chunk || chunk.type !== 'chunk') throw new Error(`The CDN build produced no ${CDN_IIFE_FILE}.`);
  return chunk.code;
}
