import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineConfig } from 'vite';
import { litHooksOff } from './lit-hooks.js';
import { mangleMembers } from './mangle-members.js';
import { templateWhitespace } from './template-whitespace.js';
import { terserPass } from './terser-pass.js';

/** The project's root directory. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const src = (path: string) => `${ROOT}src/${path}`;

/** The browser entry points of the npm build, by output name (relative to the output directory, no extension). */
export const BROWSER_ENTRIES = {
  'elements/index': src('elements/index.ts'),
  'elements/otp-verify/index': src('elements/otp-verify/index.ts'),
  'elements/pay-by-mobile/index': src('elements/pay-by-mobile/index.ts'),
  'elements/checkout-button/index': src('elements/checkout-button/index.ts'),
  'elements/translations/fr': src('elements/translations/fr.ts'),
  'react/index': src('react/index.ts'),
  'react/otp-verify': src('react/otp-verify.ts'),
  'react/pay-by-mobile': src('react/pay-by-mobile.ts'),
  'react/checkout-button': src('react/checkout-button.ts'),
} as const;

/** The element bundles whose size is budgeted: all three, and each alone. */
export const MEASURED_ENTRIES = {
  'all three elements': src('elements/index.ts'),
  '<otp-verify>': src('elements/otp-verify/index.ts'),
  '<pay-by-mobile>': src('elements/pay-by-mobile/index.ts'),
  '<checkout-button>': src('elements/checkout-button/index.ts'),
} as const;

/**
 * Packages the npm build leaves to the application's bundler, so that one copy of Lit (and React) is shared.
 * Not @lit/react: its two hundred lines are bundled into the React entries, because as a dependency it would
 * make every install, React or not, pull its required peer @types/react (and csstype, 1.7 MB).
 */
const PEERS = /^(lit|lit-html|lit-element|@lit\/reactive-element|@lit-labs\/[^/]+|react|react-dom)(\/|$)/;

/** What every build shares: no config file (vite.config.ts serves the demo), no public dir, quiet. */
function base(outDir: string): InlineConfig {
  return {
    configFile: false,
    root: ROOT,
    publicDir: false,
    logLevel: 'warn',
    plugins: [templateWhitespace()],
    // Production exports of Lit whatever NODE_ENV says: the demo builds the CDN bundle inside a process
    // whose Vite dev server has set NODE_ENV=development, which would pick Lit's development build.
    resolve: { conditions: ['module', 'browser', 'production'] },
    build: { outDir, emptyOutDir: false, target: 'es2022', sourcemap: false, reportCompressedSize: false },
  };
}

/** The npm build of the browser entries: ES modules, readable (the application's bundler minifies), Lit and React external. */
export function npmBrowserBuild(outDir: string): InlineConfig {
  const config = base(outDir);
  return {
    ...config,
    build: {
      ...config.build,
      minify: false,
      // A dependency bundled in (only @lit/react) goes to dist/vendor/: npm never packs a node_modules folder.
      lib: { entry: BROWSER_ENTRIES, formats: ['es'], fileName: (_format, name) => `${name.replace(/^.*\bnode_modules\//, 'vendor/')}.js` },
      rolldownOptions: {
        // The protocol is compiled once, by tsc with the Node entries; the relative import stays valid in dist.
        external: (id, importer) => PEERS.test(id) || (!!importer && resolve(dirname(importer), id).startsWith(`${ROOT}src/protocol/`)),
        // One file per source module, as in src: a registering module stays the one `sideEffects` names,
        // and the application's bundler drops what it does not use, module by module.
        output: { preserveModules: true, preserveModulesRoot: `${ROOT}src` },
        // The React wrappers' 'use client' stays at the top of each of their files, their module alone
        // (Next.js needs it there: see docs/nextjs.md); rolldown warns that a bundle could lose it.
        onLog: (level, log, handler) => {
          if (log.code === 'MODULE_LEVEL_DIRECTIVE' && log.id?.startsWith(`${ROOT}src/react/`)) return;
          handler(level, log);
        },
      },
    },
  };
}

/**
 * A single-file bundle of `entry` with Lit inside, minified, kept in memory: the one-file CDN builds (`es`
 * and `iife`, which scripts/build/cdn.ts writes) and the bundles the size budgets measure.
 */
export function selfContainedBuild(entry: string, format: 'es' | 'iife', fileName: string): InlineConfig {
  const config = base(`${ROOT}node_modules/.cache/merchant-elements-size`);
  return {
    ...config,
    plugins: [...config.plugins!, litHooksOff(), mangleMembers(), terserPass()],
    build: {
      ...config.build,
      write: false,
      minify: true,
      lib: { entry, formats: [format], name: 'MerchantElements', fileName: () => fileName },
      // Fully minified, whitespace too: Vite keeps an ES library readable unless told otherwise. Terser is
      // slow by Rolldown's measure, on purpose: no warning about the time it takes. Every imported constant is
      // inlined where it is read (Rolldown's default does it only in conditions): a constant of a module all
      // three elements import (the protocol's paths) leaves the shared chunk for the element that reads it.
      rolldownOptions: { optimization: { inlineConst: true }, output: { codeSplitting: false, minify: true, comments: { annotation: false } }, checks: { bundlerTimings: false } },
    },
  };
}
