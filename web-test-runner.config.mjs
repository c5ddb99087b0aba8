// Browser tests of the elements (src/elements) in real Chromium, with no bundling step: esbuild turns each
// TypeScript module into JavaScript as the page asks for it. `npm run test:elements`.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';

export default {
  files: 'test/elements/**/*.test.ts',
  nodeResolve: true,
  // Two cores shared with the rest of the suite.
  concurrency: 1,
  concurrentBrowsers: 1,
  testFramework: { config: { timeout: 10_000 } },
  filterBrowserLogs: ({ args }) => !String(args[0]).startsWith('Lit is in dev mode'),
  plugins: [
    // The project's tsconfig: experimentalDecorators and useDefineForClassFields false, as tsc sees them.
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: new URL('./tsconfig.json', import.meta.url).pathname }),
  ],
  browsers: [
    chromeLauncher({
      launchOptions: {
        // The system's Chromium: nothing here may download a browser.
        executablePath: '/usr/bin/chromium',
        headless: true,
        args: [
          '--headless=new',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      },
    }),
  ],
};
