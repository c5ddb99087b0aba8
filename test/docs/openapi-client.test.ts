// docs/openapi.md followed as written: `openapi-typescript` makes the types of the shipped OpenAPI document
// (one per operation, one per named schema), the page's `openapi-fetch` client is type-checked with them
// in strict TypeScript, then mints, pays and resolves an order against a running proxy with the sandbox,
// all on loopback. A document without operationIds or named schemas fails here before any call.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkNodeModules } from '../build/built-package.js';
import { startHarness, type Harness } from '../proxy/helpers.js';
import { blocksOf, fileOf, ROOT } from './markdown.js';

const DOC = 'docs/openapi.md';
const SERVER_KEY = 'openapi-client-test-server-key-0123456789';
const shipped = JSON.parse(await readFile(join(ROOT, 'packages/merchant-elements-server/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string }>>;
  components: { schemas: Record<string, unknown> };
};

/** The test's own use of the page's client: an order minted, paid from a number whose prompt never ends, and resolved. */
const JOURNEY = `import type { operations, UnresolvedOrder } from './merchant-proxy-types';
import { merchantProxy, paymentToken } from './merchant-proxy';

type Resolution = operations['resolveOrder']['requestBody']['content']['application/json'];

/** Mints the order's token, starts its payment as the element would, lists it unresolved and resolves it. */
export async function mintPayResolve(reference: string, referenceIdOf: (attempt: string) => string): Promise<{ listed: boolean; resolved: UnresolvedOrder }> {
  const { token } = await paymentToken({ reference, total: 12.5 });
  const paid = await merchantProxy.POST('/payments', { body: { msisdn: '0260000004' }, headers: { authorization: 'Bearer ' + token } });
  if (!paid.data) throw new Error('pay: ' + JSON.stringify(paid.error));
  const unresolved = await merchantProxy.GET('/server/orders/unresolved', { params: { query: { limit: 50 } } });
  if (!unresolved.data) throw new Error('list: ' + JSON.stringify(unresolved.error));
  const resolution: Resolution = { reference: paid.data.reference, referenceId: referenceIdOf(paid.data.reference) };
  const resolved = await merchantProxy.POST('/server/orders/{reference}/resolve', { params: { path: { reference } }, body: resolution });
  if (!resolved.data) throw new Error('resolve: ' + JSON.stringify(resolved.error));
  return { listed: unresolved.data.orders.some((o) => o.orderReference === reference), resolved: resolved.data };
}
`;

let dir: string;
let h: Harness;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'merchant-elements-openapi-client-'));
  // The reader's node_modules: openapi-typescript, openapi-fetch, and the server package with its document.
  await linkNodeModules(dir, { 'merchant-elements-server': join(ROOT, 'packages/merchant-elements-server') });
  await writeFile(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  const commands = blocksOf(DOC).filter((b) => b.lang === 'sh' && b.attrs.run === true);
  expect(commands).toHaveLength(1);
  await promisify(execFile)('bash', ['-c', commands[0]!.code], { cwd: dir });
  await writeFile(join(dir, 'merchant-proxy.ts'), fileOf(DOC, 'merchant-proxy.ts'));
  await writeFile(join(dir, 'journey.ts'), JOURNEY);
  h = await startHarness({ config: { serverKey: SERVER_KEY } });
}, 300_000);

afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a client generated from the OpenAPI document (docs/openapi.md)', { timeout: 300_000 }, () => {
  it('has a type per operation, named by its operationId, and one per named schema', async () => {
    const types = await readFile(join(dir, 'merchant-proxy-types.d.ts'), 'utf8');
    const operations = /^export interface operations \{\n([\s\S]*?)^\}/m.exec(types)?.[1] ?? '';
    const named = [...operations.matchAll(/^ {4}(\w+): \{/gm)].map((m) => m[1]);
    const ids = Object.values(shipped.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(ids.length).toBeGreaterThan(20);
    expect(named.sort()).toEqual([...ids].sort());
    for (const name of Object.keys(shipped.components.schemas)) {
      expect(types).toContain(`export type ${name} = components['schemas']['${name}'];`);
    }
  });

  it('type-checks, strict, as the page writes it and as the test uses it', () => {
    const files = ['merchant-proxy.ts', 'journey.ts'].map((f) => join(dir, f));
    const program = ts.createProgram(files, {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler, types: ['node'], typeRoots: [join(dir, 'node_modules/@types')],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  });

  it('mints a token, pays, lists the order unresolved and resolves it with the provider’s referenceId', async () => {
    process.env['MERCHANT_PROXY_URL'] = h.baseUrl;
    process.env['PROXY_SERVER_KEY'] = SERVER_KEY;
    const journey = (await import(join(dir, 'journey.ts'))) as {
      mintPayResolve(reference: string, referenceIdOf: (attempt: string) => string): Promise<{ listed: boolean; resolved: Record<string, unknown> }>;
    };
    const referenceIdOf = (attempt: string) => [...h.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === attempt)!.referenceId;
    const { listed, resolved } = await journey.mintPayResolve('CLIENT-1', referenceIdOf);
    expect(listed).toBe(true);
    expect(resolved).toMatchObject({ orderReference: 'CLIENT-1' });
  });
});
