// docs/openapi.md followed as written on the installed server package: its command makes the types from
// `node_modules/merchant-elements-server/openapi.json` (the tarball's document, one type per operationId),
// the page's `openapi-fetch` client type-checks with them in strict TypeScript, and mints a token that the
// installed `merchant-elements-server serve` takes. (test/docs/openapi-client.test.ts also pays and resolves.)
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { guideWorld, type GuideWorld } from '../docs/guide-world.js';
import { freshSecrets, type Child } from './child-process.js';
import { startInstalledSandbox, startServe, workspace } from './consumer-world.js';

const DOC = 'docs/openapi.md';
const secrets = freshSecrets();
let world: GuideWorld;
let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
let proxy: Child & { url: string };

beforeAll(async () => {
  world = await guideWorld({ terminals: {}, installed: workspace() });
  await world.writeAll(DOC);
  await world.follow(DOC);
  sandbox = await startInstalledSandbox();
  proxy = await startServe(sandbox.url, secrets, {});
});

afterAll(async () => {
  await proxy?.stop();
  await sandbox?.close();
  await world?.close();
});

it('runs every step of the page', () => {
  expect(world.unused().map((b) => `${b.doc}:${b.line}`)).toEqual([]);
});

it("makes a type per operation of the tarball's document, named by its operationId", async () => {
  const shipped = JSON.parse(await readFile(join(world.dir, 'node_modules/merchant-elements-server/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const types = await readFile(join(world.dir, 'merchant-proxy-types.d.ts'), 'utf8');
  const operations = /^export interface operations \{\n([\s\S]*?)^\}/m.exec(types)?.[1] ?? '';
  const ids = Object.values(shipped.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
  expect(ids.length).toBeGreaterThan(20);
  expect([...operations.matchAll(/^ {4}(\w+): \{/gm)].map((m) => m[1]).sort()).toEqual([...ids].sort());
});

it("type-checks the page's client, strict, against the installed openapi-fetch", () => {
  const program = ts.createProgram([join(world.dir, 'merchant-proxy.ts')], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler, types: ['node'], typeRoots: [join(world.dir, 'node_modules/@types')],
  });
  expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
});

it("mints a payment token through the page's client that the installed proxy takes", async () => {
  process.env['MERCHANT_PROXY_URL'] = proxy.url;
  process.env['PROXY_SERVER_KEY'] = secrets.serverKey;
  const client = (await import(join(world.dir, 'merchant-proxy.ts'))) as { paymentToken(order: { reference: string; total: number }): Promise<{ token: string }> };
  const { token } = await client.paymentToken({ reference: 'CLIENT-1', total: 12.5 });
  const lookup = await fetch(`${proxy.url}/accounts/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ msisdn: '0240000001' }),
  });
  expect(lookup.status).toBe(200);
});
