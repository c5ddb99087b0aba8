// docs/python.md followed as written (its files, with webhook.py from docs/webhooks.md as step 5 says; its
// commands, in their terminals), then a customer's journeys in Chromium; and the README's Python embed,
// run in the same world (test/docs/shop-guides.ts).
import { describeShopGuide } from './shop-guide.js';
import { SHOP_GUIDES } from './shop-guides.js';

describeShopGuide(SHOP_GUIDES.python);
