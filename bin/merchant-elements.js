#!/usr/bin/env node
// In a checkout (src/ present) the TypeScript CLI runs through tsx's loader, so the command works without
// a build and never runs a stale one; the published package, which ships no src/, runs the compiled dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
