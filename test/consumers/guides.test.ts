// The guides a merchant follows without Next.js (docs/php.md, python.md, script-tag.md, express.md with the
// verifiers of webhooks.md they take; server-api.md, sandbox.md, provider-client.md, tokens.md, operations.md's
// nginx), followed as written in
// a folder of the workspace where npm installed the packed tarballs: every file and command of the guide,
// `npx merchant-elements-server …` and `node_modules/merchant-elements/…` being the published packages',
// then the same journeys as test/docs (a payment, a sign-in, webhooks verified; the server API's answers).
// What each guide's `npm install` names is what the workspace installed.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guideWorld, type GuideWorld } from '../docs/guide-world.js';
import { fileOf, readDoc } from '../docs/markdown.js';
import { startNginx } from '../docs/nginx.js';
import { describeShopGuide } from '../docs/shop-guide.js';
import { SHOP_GUIDES } from '../docs/shop-guides.js';
import { freshSecrets, type Child } from './child-process.js';
import { startInstalledSandbox, startServe, workspace } from './consumer-world.js';
import { guidePackages } from './guide-snippets.js';

const installed = workspace();

describe("each guide's npm install is the workspace's", () => {
  it.each([...Object.values(SHOP_GUIDES).map((g) => g.doc)])('%s', async (doc) => {
    const { dependencies } = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const packages = guidePackages(readDoc(doc), doc);
    expect(packages).toContain('merchant-elements-server');
    expect(packages.filter((name) => !(name in dependencies))).toEqual([]);
  });
});

for (const guide of Object.values(SHOP_GUIDES)) describeShopGuide({ ...guide, installed });

describe('docs/server-api.md, on the installed server package', { timeout: 90_000 }, () => {
  let world: GuideWorld;
  let printed: string[];
  beforeAll(async () => {
    world = await guideWorld({ terminals: { sandbox: 4010, proxy: 8080 }, installed });
    printed = await world.follow('docs/server-api.md');
  }, 90_000);
  afterAll(() => world?.close());

  it('runs every step, and the token it mints is one the proxy takes', async () => {
    expect(world.unused().map((b) => `${b.doc}:${b.line}`)).toEqual([]);
    const { token } = JSON.parse(printed[0]!) as { token: string };
    const lookup = await fetch(world.url(8080, '/merchant-elements/accounts/lookup'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: '0240000001' }),
    });
    expect(lookup.status).toBe(200);
    expect(JSON.parse(printed[1]!)).toMatchObject({ error: 'NOT_FOUND' });
  });
});

describe('docs/sandbox.md and docs/provider-client.md, on the installed packages', { timeout: 90_000 }, () => {
  const worlds: GuideWorld[] = [];
  const printed: Record<string, string[]> = {};
  beforeAll(async () => {
    for (const doc of ['docs/sandbox.md', 'docs/provider-client.md']) {
      const world = await guideWorld({ terminals: { sandbox: 4010 }, installed });
      worlds.push(world);
      await world.writeAll(doc);
      printed[doc] = await world.follow(doc);
    }
  }, 90_000);
  afterAll(() => Promise.all(worlds.map((w) => w.close())));

  it('runs every step of both: a sandbox started from Node, an SMS in its outbox, an account looked up', () => {
    expect(worlds.flatMap((w) => w.unused()).map((b) => `${b.doc}:${b.line}`)).toEqual([]);
    const [started, outbox] = printed['docs/sandbox.md']!;
    expect(started!.trim()).toMatch(/^http:\/\/127\.0\.0\.1:(\d+) http:\/\/127\.0\.0\.1:\1\/gateway$/);
    expect(JSON.parse(outbox!.trim().split('\n').at(-1)!).entries[0]).toMatchObject({ kind: 'sms', to: '233240000001', message: 'Your code is 123456' });
    expect(JSON.parse(printed['docs/provider-client.md']![0]!)).toEqual({ accountName: 'KWAME MENSAH', msisdn: '233240000001', network: 'MTN' });
  });
});

describe("docs/tokens.md's minting and docs/operations.md's nginx, on the installed serve", { timeout: 90_000 }, () => {
  const secrets = freshSecrets();
  let world: GuideWorld;
  let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
  let proxy: Child & { url: string };
  beforeAll(async () => {
    world = await guideWorld({ terminals: {}, installed });
    await world.writeAll('docs/tokens.md');
    sandbox = await startInstalledSandbox();
    proxy = await startServe(sandbox.url, secrets, {});
  }, 90_000);
  afterAll(async () => {
    await proxy?.stop();
    await sandbox?.close();
    await world?.close();
  });

  const mint = async (command: string, file: string) =>
    (await promisify(execFile)(command, [file], { cwd: world.dir, env: { ...world.env, PROXY_TOKEN_SECRET: secrets.tokenSecret } })).stdout.trim();
  const call = (path: string, token: string, body: object) =>
    fetch(`${proxy.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('a payment token minted by mint.php looks up the payer; an OTP token minted by mint.py sends a code', async () => {
    const token = /^<pay-by-mobile token="([^"]+)"><\/pay-by-mobile>$/.exec(await mint('php', 'mint.php'))![1]!;
    expect((await call('/accounts/lookup', token, { msisdn: '0240000001' })).status).toBe(200);
    expect((await call('/otp/send', await mint('python3', 'mint.py'), { recipient: '024 000 0001' })).status).toBe(200);
    // Signed with another secret, the proxy refuses it: the 200s above are the secret's doing.
    const forged = (await promisify(execFile)('php', ['mint.php'], { cwd: world.dir, env: { ...world.env, PROXY_TOKEN_SECRET: freshSecrets().tokenSecret } })).stdout;
    expect((await call('/accounts/lookup', /token="([^"]+)"/.exec(forged)![1]!, { msisdn: '0240000001' })).status).toBe(401);
  });

  it("operations.md's nginx in front of it forwards the elements' routes, not the server API or the probes", async () => {
    const origin = new URL(proxy.url).origin;
    const nginx = await startNginx(fileOf('docs/operations.md', 'shop.conf').replaceAll('http://127.0.0.1:8080', origin));
    try {
      const res = await fetch(`${nginx.url}/merchant-elements/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(await res.json()).toMatchObject({ error: 'TOKEN_INVALID' });
      for (const path of ['/merchant-elements/server/orders/unresolved', '/merchant-elements/health', '/merchant-elements/ready']) {
        expect((await fetch(`${nginx.url}${path}`)).status, path).toBe(404);
      }
      expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
    } finally {
      await nginx.stop();
    }
  });
});
