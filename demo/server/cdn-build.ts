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
