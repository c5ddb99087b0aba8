// docs/express.md followed as written: the sandbox, then the guide's Express server with the proxy mounted
// in it, a customer's journeys in Chromium (the order marked paid by the hook alone); and the README's
// Express embed, run in the same world.
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { describeShopGuide, SANDBOX, SHOP } from './shop-guide.js';

const README_PORT = 3000;

describeShopGuide({
  doc: 'docs/express.md',
  terminals: { sandbox: SANDBOX, shop: SHOP },
  ports: [README_PORT],
  node: ['express'],
  webhooks: false,
  serverApi: false,
  files: (world) => world.writeAll('docs/express.md').then(() => undefined),
  more(get) {
    it("README's Express embed mounts the proxy and serves a page whose token the proxy takes", async () => {
      const { world } = get();
      await world.write('README.md', 'readme-express.mjs');
      const env = { ...process.env, NODE_OPTIONS: `--import=${new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url).pathname}`, SANDBOX_URL: world.url(SANDBOX) };
      const child = spawn(process.execPath, ['readme-express.mjs'], { cwd: world.dir, env, stdio: 'ignore' });
      try {
        const base = world.url(README_PORT);
        let html = '';
        for (let i = 0; i < 600 && !html; i++) {
          html = await fetch(`${base}/pay/ORDER-7`).then((r) => r.text(), () => '');
          if (!html) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const token = /<pay-by-mobile token="([^"]+)">/.exec(html)![1]!;
        const lookup = await fetch(`${base}/merchant-elements/accounts/lookup`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ msisdn: '0240000001' }),
        });
        expect(lookup.status).toBe(200);
      } finally {
        child.kill('SIGTERM');
      }
    });
  },
});
