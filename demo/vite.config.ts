import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const fromRepo = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** The three tags Vue must leave to the browser's custom element registry. */
export const MERCHANT_TAGS = ['otp-verify', 'pay-by-mobile', 'checkout-button'];

/**
 * Vite for the demo shop (`npm start`), in middleware mode inside demo/server: it serves the pages'
 * modules and the React and Vue pages. The package's own entry points are aliased to the sources, as a
 * merchant's bundler would resolve them from node_modules.
 */
export default defineConfig({
  root: fromRepo('demo'),
  // Its own cache, so the shop's pre-bundled dependencies never race another tool's (Storybook, builds).
  cacheDir: fromRepo('node_modules/.vite-demo'),
  // The demo server serves demo/public itself (the CDN page needs no Vite).
  publicDir: false,
  plugins: [
    vue({
      template: { compilerOptions: { isCustomElement: (tag) => MERCHANT_TAGS.includes(tag) } },
    }),
  ],
  resolve: {
    alias: [
      { find: /^merchant-elements\/react$/, replacement: fromRepo('src/react/index.ts') },
      { find: /^merchant-elements$/, replacement: fromRepo('src/elements/index.ts') },
    ],
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  optimizeDeps: {
    entries: ['client/*.ts', 'react/main.tsx', 'vue/main.ts'],
  },
  server: { host: '127.0.0.1' },
  clearScreen: false,
});
