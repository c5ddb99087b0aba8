import { defineConfig } from 'vite';

// Browser builds of the elements (library mode) arrive with the delivery work;
// for now Vite serves the demo pages and elements during development.
export default defineConfig({
  root: '.',
  server: { host: '127.0.0.1' },
  build: { target: 'es2022' },
});
