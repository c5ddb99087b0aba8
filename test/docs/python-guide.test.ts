// docs/python.md followed as written (its files, with webhook.py from docs/webhooks.md as step 5 says; its
// commands, in their terminals), then a customer's journeys in Chromium; and the README's Python embed,
// run in the same world.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { describeShopGuide, PROXY } from './shop-guide.js';

describeShopGuide({
  doc: 'docs/python.md',
  async files(world) {
    await world.writeAll('docs/python.md');
    await world.write('docs/webhooks.md', 'webhook.py');
  },
  more(get) {
    it("README's Python embed prints a page whose token the proxy takes", async () => {
      const { world, env } = get();
      await world.write('README.md', 'pay.py');
      const proxyUrl = world.url(PROXY, '/merchant-elements');
      const { stdout } = await promisify(execFile)('python3', ['pay.py'], { cwd: world.dir, env: { ...process.env, ...env, PROXY_URL: proxyUrl } });
      expect(stdout).toContain(`<pay-by-mobile proxy="${proxyUrl}"`);
      const token = /token="([^"]+)"/.exec(stdout)![1]!;
      const lookup = await fetch(`${proxyUrl}/accounts/lookup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ msisdn: '0240000001' }),
      });
      expect(lookup.status).toBe(200);
    });
  },
});
