// The shop guides as their tests follow them: which files each writes (its own, and the webhook verifier it
// takes from docs/webhooks.md), its terminals, what its shop does, and the README's embed for its language.
// Shared by test/docs (the guides on this checkout) and test/consumers/guides.test.ts (the same guides on
// the packed tarballs, as npm installed them).
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { itRunsTheReadmeEmbed, SANDBOX, SHOP, type ShopGuide } from './shop-guide.js';

/** The port README's Express embed names (the Express guide's world remaps it). */
const README_PORT = 3000;

export const SHOP_GUIDES = {
  php: {
    doc: 'docs/php.md',
    async files(world) {
      await world.writeAll('docs/php.md');
      await world.write('docs/webhooks.md', 'webhook.php');
    },
    more: (get) => itRunsTheReadmeEmbed(get, 'php', 'pay.php'),
  },
  python: {
    doc: 'docs/python.md',
    async files(world) {
      await world.writeAll('docs/python.md');
      await world.write('docs/webhooks.md', 'webhook.py');
    },
    more: (get) => itRunsTheReadmeEmbed(get, 'python3', 'pay.py'),
  },
  'script-tag': {
    doc: 'docs/script-tag.md',
    signIn: false,
    async files(world) {
      await world.writeAll('docs/script-tag.md');
      await world.write('docs/webhooks.md', 'webhook.mjs');
    },
  },
  express: {
    doc: 'docs/express.md',
    terminals: { sandbox: SANDBOX, shop: SHOP },
    ports: [README_PORT],
    node: ['express'],
    // An Express shop hears the proxy's hooks in process, and has no server API of its own to call.
    webhooks: false,
    serverApi: false,
    files: (world) => world.writeAll('docs/express.md').then(() => undefined),
    more(get) {
      it("README's Express embed mounts the proxy and serves a page whose token the proxy takes", async () => {
        const { world } = get();
        await world.write('README.md', 'readme-express.mjs');
        const child = spawn(process.execPath, ['readme-express.mjs'], { cwd: world.dir, env: { ...world.env, SANDBOX_URL: world.url(SANDBOX) }, stdio: 'ignore' });
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
  },
} satisfies Record<string, ShopGuide>;
