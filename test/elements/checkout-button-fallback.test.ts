import { expect, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { CheckoutButton } from '../../src/elements/checkout-button/index.js';
import { FakeProxy, checkoutCreated, fakeToken, json } from './fake-proxy.js';
import { part } from './helpers.js';

// The documented snippet's fallback form inside <checkout-button> (docs/elements.md): a plain form the page
// shows before the element's script, adopted when the element is defined.
const TOKEN = fakeToken({ scope: 'checkout', reference: 'ORDER-F', amount: 45 });
const URL_1 = 'https://pay.example.test/checkout/chk_1';

let defined = 0;

/** The snippet's markup under a tag not yet defined (as the page shows it before the script), in the page. */
function page(attributes = '') {
  const tag = `checkout-button-later-${++defined}`;
  const host = document.createElement('div');
  host.innerHTML = `<${tag}${attributes}>
    <form method="post" action="/merchant-elements/checkouts/start">
      <input type="hidden" name="token" value="${TOKEN}">
      <button>Pay GHS 45.00</button>
    </form>
  </${tag}>`;
  document.body.append(host);
  const el = host.firstElementChild as CheckoutButton;
  return { tag, el, host, fallback: el.querySelector('button')!, form: el.querySelector('form')! };
}

describe('<checkout-button> with the snippet’s fallback form', () => {
  let proxy: FakeProxy;
  let hosts: HTMLElement[];
  beforeEach(() => {
    proxy = new FakeProxy();
    proxy.on('POST', '/checkouts', () => json(checkoutCreated(), 201));
    proxy.stream(/^\/checkouts\/[^/]+\/events$/);
    hosts = [];
  });
  afterEach(() => {
    proxy.restore();
    for (const h of hosts) h.remove();
  });

  it('before its script: a real form button, shown and focusable, that posts the token to /checkouts/start', () => {
    const { el, host, fallback, form } = page();
    hosts.push(host);
    expect(customElements.get(el.localName)).to.be.undefined;
    expect(fallback.checkVisibility()).to.be.true;
    fallback.focus();
    expect(document.activeElement).to.equal(fallback);
    expect(form.method).to.equal('post');
    expect(new URL(form.action).pathname).to.equal('/merchant-elements/checkouts/start');
    expect(new FormData(form).get('token')).to.equal(TOKEN);
  });

  it('once defined: its own button, labelled as the fallback was, focused where the fallback was; the form neither shown nor announced', async () => {
    const { tag, el, host, fallback, form } = page();
    hosts.push(host);
    fallback.focus();
    customElements.define(tag, class extends CheckoutButton {});
    await el.updateComplete;
    const button = part<HTMLButtonElement>(el, 'button')!;
    expect(button.textContent!.trim()).to.equal('Pay GHS 45.00');
    expect(button.querySelector('slot')).to.be.null;
    expect(el.shadowRoot!.activeElement).to.equal(button);
    expect(form.checkVisibility()).to.be.false;
    expect(fallback.checkVisibility()).to.be.false;
    // One button in the accessibility tree, named.
    await expect(el).to.be.accessible();
  });

  it('a press after the upgrade is the element’s: POST /checkouts with the form’s token, never the form’s submit', async () => {
    const { tag, el, host, fallback, form } = page();
    hosts.push(host);
    let submitted = 0;
    form.addEventListener('submit', (e) => (submitted++, e.preventDefault()));
    fallback.focus();
    customElements.define(tag, class extends CheckoutButton {});
    await el.updateComplete;
    const navigated: string[] = [];
    el.navigate = (url) => navigated.push(url);
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => navigated.length == 1, 'sent to the checkout page');
    expect(navigated).to.deep.equal([URL_1]);
    const calls = proxy.calls('POST', '/checkouts');
    expect(calls).to.have.length(1);
    expect(calls[0]!.headers.get('authorization')).to.equal(`Bearer ${TOKEN}`);
    expect(submitted).to.equal(0);
    expect(proxy.requests.filter((r) => r.path == '/checkouts/start')).to.have.length(0);
  });

  it('keeps a token set on the element over the form’s, and is not focused when the fallback was not', async () => {
    const other = fakeToken({ scope: 'checkout', reference: 'ORDER-G', amount: 45 });
    const { tag, el, host } = page(` token="${other}"`);
    hosts.push(host);
    customElements.define(tag, class extends CheckoutButton {});
    await el.updateComplete;
    expect(el.token).to.equal(other);
    expect(el.shadowRoot!.activeElement).to.be.null;
  });
});
