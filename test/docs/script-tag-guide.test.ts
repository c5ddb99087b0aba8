// docs/script-tag.md followed as written: the sandbox, `serve`, and the guide's plain Node server (with
// webhook.mjs from docs/webhooks.md, as step 3 says), which sends a strict Content-Security-Policy; then a
// customer pays in Chromium under that policy and the order is marked paid by the verified webhook alone.
import { describeShopGuide } from './shop-guide.js';
import { SHOP_GUIDES } from './shop-guides.js';

describeShopGuide(SHOP_GUIDES['script-tag']);
