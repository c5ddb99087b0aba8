// `npm run build`: the package's dist/ (or `--out-dir DIR`) and the server package's
// (packages/merchant-elements-server/dist, beside it), then the size budgets. Exits non-zero when a
// step fails, tsc finds a type error, or a budget is exceeded. The build test, which runs after `npm run
// typecheck` and checks the budgets apart, passes `--no-typecheck --no-size-check`.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { build } from 'vite';
import { ROOT, npmBrowserBuild } from './build/bundles.js';
import { buildCdn } from './build/cdn.js';
import { checkSizes } from './check-size.js';
import { assembleServerPackage, writeServerEntries } from './build/server-package.js';

const run = promisify(execFile);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Compiles a tsconfig.build.*.json project into `outDir`, printing the compiler's errors when it fails. */
async function compile(project: string, outDir: string, typecheck: boolean) {
  try {
    await run(process.execPath, [tsc, '-p', project, '--outDir', outDir, ...(typecheck ? [] : ['--noCheck'])], { cwd: ROOT });
  } catch (e) {
    const { stdout = '', stderr = '' } = e as { stdout?: string; stderr?: string };
    throw new Error(`tsc -p ${project} failed:\n${stdout}${stderr}`);
  }
}

/**
 * The custom elements manifest, by the elements' own `analyze` script (into the project's root: given
 * another directory the analyzer also rewrites package.json's `customElements`), copied to the package's root.
 */
async function analyze(packageDir: string) {
  await run('npm', ['run', '--silent', 'analyze', '--', '--quiet'], { cwd: ROOT });
  if (resolve(packageDir) !== resolve(ROOT)) await copyFile(`${ROOT}custom-elements.json`, `${packageDir}/custom-elements.json`);
}

/** Builds every entry point into `outDir` (whose parent directory is the package's root). */
async function buildPackage(outDir: string, typecheck: boolean) {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await Promise.all([
    // Node entries, with declarations; declarations alone for the browser entries Vite bundles.
    compile('tsconfig.build.node.json', outDir, typecheck),
    compile('tsconfig.build.browser.json', outDir, typecheck),
    (async () => {
      await build(npmBrowserBuild(outDir));
      await buildCdn(`${outDir}/cdn`);
    })(),
    analyze(dirname(outDir)),
    writeServerEntries(outDir),
  ]);
  await assembleServerPackage(outDir);
  // merchant-elements/vue is types (Vue's GlobalComponents, from src/vue, whose .d.ts tsc wrote above); a
  // module for its `default`, so that an import of it resolves at run time too.
  await writeFile(`${outDir}/vue/index.js`, '// merchant-elements/vue is types only: see index.d.ts.\nexport {};\n');
}

// A production build whatever the shell says: Vite picks Lit's development build when NODE_ENV is not production.
process.env['NODE_ENV'] = 'production';
const { values } = parseArgs({
  options: { 'out-dir': { type: 'string' }, 'no-typecheck': { type: 'boolean' }, 'no-size-check': { type: 'boolean' } },
});
const outDir = resolve(values['out-dir'] ?? `${ROOT}dist`);
try {
  const started = Date.now();
  await buildPackage(outDir, !values['no-typecheck']);
  process.stdout.write(`Built ${relative(process.cwd(), outDir) || '.'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (!values['no-size-check'] && !(await checkSizes())) process.exitCode = 1;
} catch (e) {
  process.stderr.write(`build failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
