// The package is published as two: merchant-elements (the elements, React, the CDN builds: Lit is all it
// installs) and merchant-elements-server (proxy, provider, sandbox, CLI, with express, zod and the rest of
// the server's dependencies). Both are built from this one repository into one dist/; this module writes
// merchant-elements' entries that lead to the server package, and assembles that package's dist/.
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The Node entry points, which merchant-elements re-exports from merchant-elements-server. */
export const SERVER_ENTRIES = ['proxy', 'provider', 'sandbox'] as const;

/** What of dist/ the server package ships (protocol too: its schemas are the proxy's, zod and all). */
const SERVER_FOLDERS = ['proxy', 'provider', 'sandbox', 'cli', 'protocol'] as const;

/** The server package's folder, beside dist/'s package root. */
export const serverPackageDir = (outDir: string) => join(dirname(outDir), 'packages', 'merchant-elements-server');

/**
 * `dist/server/proxy.js` and its `.d.ts` (and provider, sandbox): one re-export each, so an application
 * imports `merchant-elements/proxy` as before. Without the server package installed, Node's error names it:
 * `Cannot find package 'merchant-elements-server' imported from …/merchant-elements/dist/server/proxy.js`.
 */
export async function writeServerEntries(outDir: string) {
  await mkdir(join(outDir, 'server'), { recursive: true });
  await Promise.all(
    SERVER_ENTRIES.flatMap((entry) => {
      const text =
        `// merchant-elements/${entry} is in the server package: npm install merchant-elements-server\n` +
        `export * from 'merchant-elements-server/${entry}';\n`;
      return [writeFile(join(outDir, 'server', `${entry}.js`), text), writeFile(join(outDir, 'server', `${entry}.d.ts`), text)];
    }),
  );
}

/** Copies the Node half of `outDir` into the server package's own dist/ (its package.json is checked in). */
export async function assembleServerPackage(outDir: string) {
  const target = join(serverPackageDir(outDir), 'dist');
  await rm(target, { recursive: true, force: true });
  await Promise.all(SERVER_FOLDERS.map((folder) => cp(join(outDir, folder), join(target, folder), { recursive: true })));
}
