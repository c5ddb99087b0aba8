// docs/php.md followed as written (its files, with webhook.php from docs/webhooks.md as step 5 says; its
// commands, in their terminals), then a customer's journeys in Chromium; and the README's PHP embed, run in
// the same world.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { checkBlock, fileOf } from './markdown.js';
import { describeShopGuide, PROXY } from './shop-guide.js';

describeShopGuide({
  doc: 'docs/php.md',
  async files(world) {
    await world.writeAll('docs/php.md');
    await world.write('docs/webhooks.md', 'webhook.php');
  },
  more(get) {
    it("the webhooks guide's PHP endpoint line is the one the guide's index.php runs", () => {
      const index = fileOf('docs/php.md', 'index.php');
      for (const line of checkBlock('docs/webhooks.md', 'php').code.split('\n').filter(Boolean)) expect(index).toContain(line.trim());
    });

    it("README's PHP embed prints a page whose token the proxy takes", async () => {
      const { world, env } = get();
      await world.write('README.md', 'pay.php');
      const proxyUrl = world.url(PROXY, '/merchant-elements');
      const { stdout } = await promisify(execFile)('php', ['pay.php'], { cwd: world.dir, env: { ...process.env, ...env, PROXY_URL: proxyUrl } });
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
