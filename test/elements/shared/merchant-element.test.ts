// The page's fallback in an element (docs/elements.md's snippet: a <label> and an <input> inside the tag), usable
// before the element's code comes: typed into with real keystrokes while the tag is still undefined, then
// the element is defined (a subclass under a fresh tag, as the loader defining it late would), and what was
// typed, the caret and the focus must be the element's own input's, the keystrokes after it go on where they
// were, the number reaches the proxy, and one label and one input are left to hear.
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { a11ySnapshot, sendKeys } from '@web/test-runner-commands';
import { OtpVerify } from '../../../src/elements/otp-verify/index.js';
import { PayByMobile } from '../../../src/elements/pay-by-mobile/index.js';
import { FakeProxy, account, fakeToken, order, otpSent } from '../fake-proxy.js';

const PAY_TOKEN = fakeToken({ scope: 'payment', amount: 12.5, referenceNo: 'ORDER-123' });
const OTP_TOKEN = fakeToken({ scope: 'otp', purpose: 'sign-in' });

let defined = 0;
/** A fresh tag for `base`, not defined yet: the page as it is before the element's code came. */
const lateTag = (base: string) => `${base}-late-${++defined}`;

/** The snippet's markup under `tag`, with the fallback when `fallback` is its label. */
async function page(tag: string, token: string, fallback?: string, attrs = '') {
  const inner = fallback ? `<label>${fallback} <input type="tel" autocomplete="tel"></label>` : '';
  const box = await fixture<HTMLDivElement>(html`<div></div>`);
  box.innerHTML = `<${tag} token="${token}" ${attrs}>${inner}</${tag}>`;
  return box.firstElementChild as HTMLElement & { state: string; updateComplete: Promise<unknown>; value: string };
}

/** Defines `tag` now and waits for the element's first render. */
async function upgrade(el: HTMLElement & { updateComplete: Promise<unknown> }, base: new (...args: any[]) => HTMLElement) {
  customElements.define(el.localName, class extends base {});
  await el.updateComplete;
}

const ownInput = (el: Element) => el.shadowRoot!.querySelector('input')!;

interface A11yNode {
  role: string;
  name: string;
  children?: A11yNode[];
}
const all = (node: A11yNode): A11yNode[] => [node, ...(node.children ?? []).flatMap(all)];

describe('an element adopts the page’s fallback input', () => {
  let proxy: FakeProxy;
  beforeEach(() => {
    proxy = new FakeProxy();
    proxy.on('GET', '/order', order());
    proxy.on('POST', '/accounts/lookup', account());
    proxy.on('POST', '/otp/send', otpSent());
  });
  afterEach(() => proxy.restore());

  it('<pay-by-mobile>: typed before the upgrade, the number, the caret and the focus carry on in its own input, and reach the lookup', async () => {
    const el = await page(lateTag('pay-by-mobile'), PAY_TOKEN, 'Mobile money number');
    const fallback = el.querySelector('input')!;
    fallback.focus();
    await sendKeys({ type: '02400001' });
    // The caret two digits back: the next keystroke goes there, after the upgrade too.
    await sendKeys({ press: 'ArrowLeft' });
    await sendKeys({ press: 'ArrowLeft' });
    expect(el.shadowRoot, 'not upgraded yet').to.equal(null);

    await upgrade(el, PayByMobile);
    const input = ownInput(el);
    expect(input.value).to.equal('02400001');
    expect(el.shadowRoot!.activeElement, 'focus on its own input').to.equal(input);
    expect([input.selectionStart, input.selectionEnd]).to.deep.equal([6, 6]);
    expect(el.value).to.equal('02400001');

    await sendKeys({ type: '00' });
    expect(input.value).to.equal('0240000001');
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => proxy.calls('POST', '/accounts/lookup').length == 1, 'the lookup is sent');
    expect(proxy.calls('POST', '/accounts/lookup')[0]!.body).to.deep.equal({ msisdn: '0240000001' });
  });

  it('<otp-verify>: typed before the upgrade, the number goes with the code request', async () => {
    const el = await page(lateTag('otp-verify'), OTP_TOKEN, 'Phone number');
    el.querySelector('input')!.focus();
    await sendKeys({ type: '024000' });
    await upgrade(el, OtpVerify);
    expect(el.shadowRoot!.activeElement).to.equal(ownInput(el));
    await sendKeys({ type: '0001' });
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => proxy.calls('POST', '/otp/send').length == 1, 'the code is requested');
    expect(proxy.calls('POST', '/otp/send')[0]!.body).to.deep.equal({ recipient: '0240000001' });
  });

  it('once upgraded, one labelled input is announced, the fallback neither shown nor heard', async () => {
    const el = await page(lateTag('pay-by-mobile'), PAY_TOKEN, 'Mobile money number');
    const before = (await a11ySnapshot({})) as unknown as A11yNode;
    expect(all(before).filter((n) => n.role == 'textbox').map((n) => n.name)).to.deep.equal(['Mobile money number']);

    await upgrade(el, PayByMobile);
    const after = (await a11ySnapshot({})) as unknown as A11yNode;
    expect(all(after).filter((n) => n.role == 'textbox').map((n) => n.name)).to.deep.equal(['Mobile money number']);
    expect(el.querySelector('input')!.checkVisibility(), 'the fallback is off the screen').to.equal(false);
    expect(ownInput(el).checkVisibility()).to.equal(true);
  });

  it('a fallback left empty and unfocused leaves the element as the old snippet has it: its own value, the focus where it was', async () => {
    const el = await page(lateTag('pay-by-mobile'), PAY_TOKEN, 'Mobile money number', 'value="0240000002"');
    await upgrade(el, PayByMobile);
    expect(ownInput(el).value).to.equal('0240000002');
    expect(el.shadowRoot!.activeElement).to.equal(null);
  });

  it('the old snippet, no fallback: the element draws its input, nothing focused', async () => {
    const el = await page(lateTag('pay-by-mobile'), PAY_TOKEN);
    await upgrade(el, PayByMobile);
    expect(ownInput(el).value).to.equal('');
    expect(el.shadowRoot!.activeElement).to.equal(null);
    expect(el.state).to.equal('idle');
  });
});
