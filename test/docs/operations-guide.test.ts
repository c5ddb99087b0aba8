/**
 * 'docs/operations.md': the nginx configuration it gives, run by a real nginx in front of a running proxy:
 * the elements' routes pass, the server API and the probes (`/health`, `/ready`) do not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startHarness, type Harness } from '../proxy/helpers.js';
import { fileOf } from './markdown.js';

const DOC = 'docs/operations.md';

let proxy: Harness;
let nginx: ChildProcess;
let shop: string;
const dir = mkdtempSync(join(tmpdir(), 'me-nginx-'));

beforeAll(async () => {
  proxy = await startHarness();
  const port = await freePort();
  // The page's block as written, pointed at this test's proxy instead of 127.0.0.1:8080.
  const locations = fileOf(DOC, 'shop.conf').replaceAll('http://127.0.0.1:8080', proxy.origin);
  expect(locations).not.toBe(fileOf(DOC, 'shop.conf'));
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
${locations}
  }
}
`,
  );
  // Debian's nginx is in /usr/sbin, outside a plain user's PATH; -e: no default error log is opened first.
  const binary = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  nginx = spawn(binary, ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  shop = `http://127.0.0.1:${port}`;
  const end = Date.now() + 15_000;
  for (;;) {
    const up = await fetch(`${shop}/merchant-elements/nothing`).then(() => true, () => false);
    if (up) break;
    if (Date.now() > end || nginx.exitCode !== null) throw new Error('nginx did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(async () => {
  if (nginx && nginx.exitCode === null) await new Promise((resolve) => (nginx.once('exit', resolve), nginx.kill('SIGTERM')));
  await proxy?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the shop's own origin, through the nginx configuration of docs/operations.md", () => {
  it('forwards the elements’ routes to the proxy', async () => {
    const res = await fetch(`${shop}/merchant-elements/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    // The proxy's own answer (no token), not nginx's.
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'TOKEN_INVALID' });
  });

  it('forwards neither the server API nor the probes, which stay on the internal address', async () => {
    for (const path of ['/merchant-elements/server/orders/unresolved', '/merchant-elements/health', '/merchant-elements/ready']) {
      expect((await fetch(`${shop}${path}`)).status, path).toBe(404);
    }
    // Still answered where the balancer asks: the proxy's own address.
    expect((await fetch(`${proxy.baseUrl}/health`)).status).toBe(200);
  });
});
