// Browser tests of the React wrappers (src/react) in real Chromium: `npm run test:react`. React ships only
// CommonJS, which a browser cannot import, so each test file is bundled by Vite (React, the wrappers and
// the elements from src) when the page asks for it.
import { chromeLauncher } from '@web/test-runner-chrome';
import { build } from 'vite';
import { chromiumLaunchOptions } from './test/support/chromium.mjs';

const root = new URL('./', import.meta.url).pathname;

/** Serves `test/react/*.test.tsx` as one ES module each, everything it imports inside. */
const bundleTestFiles = {
  name: 'bundle-react-tests',
  async serve(context) {
    if (!/^\/test\/react\/[\w.-]+\.test\.tsx$/.test(context.path)) return undefined;
    const [result] = await build({
      configFile: false,
      root,
      logLevel: 'warn',
      mode: 'development',
      define: { 'process.env.NODE_ENV': '"development"' },
      build: {
        write: false,
        minify: false,
        target: 'es2022',
        lib: { entry: root + context.path.slice(1), formats: ['es'], fileName: 'test' },
        rolldownOptions: {
          output: { codeSplitting: false },
          // The wrappers' 'use client' (for Next.js) means nothing in one bundle: rolldown drops it, and says so.
          onLog: (level, log, handler) => (log.code === 'MODULE_LEVEL_DIRECTIVE' ? undefined : handler(level, log)),
        },
      },
    });
    return { body: result.output[0].code, type: 'js' };
  },
};

export default {
  files: 'test/react/**/*.test.tsx',
  concurrency: 1,
  concurrentBrowsers: 1,
  testFramework: { config: { timeout: 10_000 } },
  filterBrowserLogs: ({ args }) => !String(args[0]).startsWith('Lit is in dev mode'),
  plugins: [bundleTestFiles],
  browsers: [
    chromeLauncher({
      launchOptions: {
        // The system's Chromium: nothing here may download a browser.
        ...chromiumLaunchOptions(),
        headless: true,
        
      },
    }),
  ],
};
