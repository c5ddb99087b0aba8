// docs/php.md followed as written (its files, with webhook.php from docs/webhooks.md as step 5 says; its
// commands, in their terminals), then a customer's journeys in Chromium; and the README's PHP embed, run in
// the same world.
import { expect, it } from 'vitest';
import { checkBlock, fileOf } from './markdown.js';
import { describeShopGuide, itRunsTheReadmeEmbed } from './shop-guide.js';

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
    itRunsTheReadmeEmbed(get, 'php', 'pay.php');
  },
});
