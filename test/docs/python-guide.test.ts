// docs/python.md followed as written (its files, with webhook.py from docs/webhooks.md as step 5 says; its
// commands, in their terminals), then a customer's journeys in Chromium; and the README's Python embed,
// run in the same world.
import { describeShopGuide, itRunsTheReadmeEmbed } from './shop-guide.js';

describeShopGuide({
  doc: 'docs/python.md',
  async files(world) {
    await world.writeAll('docs/python.md');
    await world.write('docs/webhooks.md', 'webhook.py');
  },
  more: (get) => itRunsTheReadmeEmbed(get, 'python3', 'pay.py'),
});
