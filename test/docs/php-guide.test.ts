// docs/php.md followed as written (its files, with webhook.php from docs/webhooks.md as step 5 says; its
// commands, in their terminals), then a customer's journeys in Chromium; and the README's PHP embed, run in
// the same world (test/docs/shop-guides.ts).
import { expect, it } from 'vitest';
import { checkBlock, fileOf } from './markdown.js';
import { describeShopGuide } from './shop-guide.js';
import { SHOP_GUIDES } from './shop-guides.js';

describeShopGuide({
  ...SHOP_GUIDES.php,
  more(get) {
    it("the webhooks guide's PHP endpoint line is the one the guide's index.php runs", () => {
      const index = fileOf('docs/php.md', 'index.php');
      for (const line of checkBlock('docs/webhooks.md', 'php').code.split('\n').filter(Boolean)) expect(index).toContain(line.trim());
    });
    SHOP_GUIDES.php.more(get);
  },
});
