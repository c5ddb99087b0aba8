#!/usr/bin/env node
// In a checkout (src/ present) the TypeScript CLI runs through tsx's loader, so the command works without
// a build and never runs a stale one. The published merchant-elements is the browser package: the command
// lives in merchant-elements-server, which a browser-only install does not have; say so and what to install.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  let server;
  try {
    server = import.meta.resolve('merchant-elements-server/package.json');
  } catch {
    process.stderr.write(
      'The merchant-elements command (sandbox, serve, sms, payment…) is in the server package, which this install does not have:\n' +
        '  npm install merchant-elements-server    (in this project), or\n' +
        `  npx merchant-elements-server ${process.argv.slice(2).join(' ') || 'help'}\n`,
    );
    process.exit(2);
  }
  ({ main } = await import(new URL('dist/cli/main.js', server).href));
}
process.exitCode = await main(process.argv.slice(2));
