// docs/express.md followed as written: the sandbox, then the guide's Express server with the proxy mounted
// in it, a customer's journeys in Chromium (the order marked paid by the hook alone); and the README's
// Express embed, run in the same world (test/docs/shop-guides.ts).
import { describeShopGuide } from './shop-guide.js';
import { SHOP_GUIDES } from './shop-guides.js';

describeShopGuide(SHOP_GUIDES.express);
