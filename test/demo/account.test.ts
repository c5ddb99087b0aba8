import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../../demo/server/index.js';
import { Visitor, elementToken, lastCode } from './shop-client.js';

describe('the account page of the demo shop', () => {
  let demo: RunningDemo;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, timeScale: 1, logLevel: 'silent' });
  });
  afterAll(() => demo?.close());

  /** Signs a visitor in with a real proof for `digits`, as <otp-verify> and the sign-in form do. */
  async function signIn(visitor: Visitor, typed: string, digits: string) {
    const token = elementToken((await visitor.get('/sign-in')).text, 'otp-verify');
    expect((await visitor.postJson('/merchant-elements/otp/send', { recipient: typed }, token)).status).toBe(200);
    const code = await lastCode(demo.url, digits);
    const { body } = await visitor.postJson('/merchant-elements/otp/verify', { recipient: typed, code }, token);
    expect((await visitor.postForm('/sign-in', { proof: body.proof })).status).toBe(303);
  }

  async function order(visitor: Visitor) {
    await visitor.postForm('/cart/add', { productId: 'gari' });
    const placed = await visitor.postForm('/orders', { method: 'pay-by-mobile' });
    return /ORDER-\d+/.exec(placed.location ?? '')![0];
  }

  it('lists only the signed-in customer’s orders, even when another number masks the same', async () => {
    // Both show as +233 24 *** **17.
    const ama = new Visitor(demo.url);
    const kofi = new Visitor(demo.url);
    await signIn(ama, '024 000 0017', '233240000017');
    await signIn(kofi, '024 999 0017', '233249990017');
    const amasOrder = await order(ama);
    const kofisOrder = await order(kofi);

    const amasPage = (await ama.get('/account')).text;
    const kofisPage = (await kofi.get('/account')).text;
    expect(amasPage).toMatch(/data-testid="signed-in-number">\+233 24 \*\*\* \*\*17</);
    expect(kofisPage).toMatch(/data-testid="signed-in-number">\+233 24 \*\*\* \*\*17</);
    expect(amasPage).toContain(amasOrder);
    expect(amasPage).not.toContain(kofisOrder);
    expect(kofisPage).toContain(kofisOrder);
    expect(kofisPage).not.toContain(amasOrder);
  });
});
