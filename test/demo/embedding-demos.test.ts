import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../../demo/server/index.js';
import { Visitor, claimsOf, elementToken } from './shop-client.js';

describe('the embedding demos', () => {
  let demo: RunningDemo;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, timeScale: 0.01, logLevel: 'silent' });
  });
  afterAll(() => demo?.close());

  const fetchModule = async (path: string) => {
    const res = await fetch(new URL(path, demo.url));
    return { status: res.status, type: res.headers.get('content-type') ?? '', code: await res.text() };
  };

  it("serves the package's CDN loader and the modules it fetches: one per element, and the chunk they share", async () => {
    const loader = await fetchModule('/cdn/loader.js');
    expect(loader.status).toBe(200);
    expect(loader.type).toMatch(/^text\/javascript/);
    // It imports its files from beside itself, so the folder works under any path.
    expect(loader.code).toContain('import.meta.url');
    const shared = /`(shared\.js)`/.exec(loader.code)?.[1];
    expect(shared).toBeDefined();
    for (const tag of ['otp-verify', 'pay-by-mobile', 'checkout-button']) {
      const element = await fetchModule(`/cdn/${tag}.js`);
      expect(element.status).toBe(200);
      expect(element.code).toContain(`from"./${shared}"`);
      expect(element.code).toContain(`define(\`${tag}\``);
    }
    // Lit's production build, though the demo's own Vite dev server runs in the same process.
    const lit = await fetchModule(`/cdn/${shared}`);
    expect(lit.code).toContain('litElementVersions');
    expect(lit.code).not.toMatch(/dev mode/i);
    expect((await fetchModule('/cdn/nothing.js')).status).toBe(404);
  });

  it('renders the plain HTML page with the loader alone and tokens bound to a demo order', async () => {
    const page = (await new Visitor(demo.url).get('/embed/cdn')).text;
    expect(page).toContain('<script type="module" src="/cdn/loader.js"></script>');
    // No bundler: nothing of Vite's on the page.
    expect(page).not.toContain('/@vite/client');
    expect(page.match(/<script type="module"/g)).toHaveLength(1);
    const reference = /data-testid="order-reference">(ORDER-\d+)</.exec(page)?.[1];
    expect(reference).toBeDefined();
    // A tote bag (GHS 60.00) and shea butter (GHS 35.00).
    expect(claimsOf(elementToken(page, 'pay-by-mobile'))).toMatchObject({ scope: 'payment', referenceNo: reference, amount: 95 });
    expect(claimsOf(elementToken(page, 'checkout-button'))).toMatchObject({ scope: 'checkout', reference, amount: 95 });
    expect(claimsOf(elementToken(page, 'otp-verify'))).toMatchObject({ scope: 'otp', purpose: 'sign-in' });
  });

  it('serves the React page’s modules through Vite, with the wrappers of merchant-elements/react', async () => {
    const page = (await new Visitor(demo.url).get('/embed/react/')).text;
    expect(page).toContain('<script type="module" src="/@vite/client"></script>');
    expect(page).toContain('<script type="module" src="/react/main.tsx"></script>');
    const main = await fetchModule('/react/main.tsx');
    expect(main.type).toMatch(/^text\/javascript/);
    const app = await fetchModule('/react/app.tsx');
    expect(app.code).toMatch(/import \{ CheckoutButton, OtpVerify, PayByMobile \} from "(\/@fs)?\/[^"]*src\/react\/index\.ts"/);
    expect(app.code).toContain('jsx'); // JSX compiled by Vite
    const wrappers = /from "([^"]*src\/react\/index\.ts)"/.exec(app.code)![1]!;
    // The entry re-exports one module per wrapper; each wraps its element with @lit/react's createComponent.
    const payByMobile = /from "([^"]*src\/react\/pay-by-mobile\.ts)"/.exec((await fetchModule(wrappers)).code)![1]!;
    const wrap = /from "([^"]*src\/react\/wrap\.ts)"/.exec((await fetchModule(payByMobile)).code)![1]!;
    expect((await fetchModule(wrap)).code).toContain('createComponent');
  });

  it('compiles the Vue page with the three tags left to the browser as custom elements', async () => {
    const page = (await new Visitor(demo.url).get('/embed/vue/')).text;
    expect(page).toContain('<script type="module" src="/vue/main.ts"></script>');
    const app = await fetchModule('/vue/App.vue');
    expect(app.status).toBe(200);
    for (const tag of ['otp-verify', 'pay-by-mobile', 'checkout-button']) {
      expect(app.code).toMatch(new RegExp(`_createElement(Block|VNode)\\("${tag}"`));
      expect(app.code).not.toContain(`resolveComponent("${tag}")`);
    }
    expect((await fetchModule('/vue/main.ts')).code).toMatch(/src\/elements\/index\.ts"/);
  });

  it('gives a single-page app orders and tokens the server decided, and verifies its proofs', async () => {
    const spa = new Visitor(demo.url);
    const payment = await spa.postJson('/demo-api/orders', { kind: 'payment' });
    expect(payment.status).toBe(201);
    expect(payment.body).toMatchObject({ amount: 95, currency: 'GHS', orderUrl: `/orders/${payment.body.reference}` });
    expect(claimsOf(payment.body.token)).toMatchObject({ scope: 'payment', referenceNo: payment.body.reference, amount: 95 });

    const checkout = await spa.postJson('/demo-api/orders', { kind: 'checkout' });
    expect(checkout.body.reference).not.toBe(payment.body.reference);
    expect(claimsOf(checkout.body.token)).toMatchObject({ scope: 'checkout', returnUrl: `${demo.url}/orders/${checkout.body.reference}` });

    const otp = await spa.postJson('/demo-api/otp-tokens', {});
    expect(claimsOf(otp.body.token)).toMatchObject({ scope: 'otp', purpose: 'sign-in' });
    // An OTP token is not a proof: refused.
    const forged = await spa.postJson('/demo-api/sign-in', { proof: otp.body.token });
    expect(forged).toMatchObject({ status: 400, body: { error: 'SIGN_IN_REFUSED' } });
  });
});
