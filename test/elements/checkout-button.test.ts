import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, sendMouse } from '@web/test-runner-commands';
import '../../src/elements/checkout-button/index.js';
import { closeCheckoutPopup } from '../../src/elements/checkout-button/checkout-return.js';
import type { CheckoutButton } from '../../src/elements/checkout-button/index.js';
import { StatusStreamController } from '../../src/elements/shared/status-stream.js';
import '../../src/elements/translations/fr.js';
import { FakeProxy, checkout, checkoutCreated, fakeToken, json, offline, problem, type SseStream } from './fake-proxy.js';
import { deferred, part, sleep, stateIs, text } from './helpers.js';

const TOKEN = fakeToken({ scope: 'checkout', reference: 'ORDER-9', amount: 50 });
const URL_1 = 'https://pay.example.test/checkout/chk_1';

describe('<checkout-button>', () => {
  let proxy: FakeProxy;
  let opened: unknown[][];
  let openResult: Window | null;
  let navigated: string[];
  const realOpen = window.open;
  const defaults = StatusStreamController.defaults;
  before(() => {
    StatusStreamController.defaults = { baseDelay: 10, maxDelay: 40, maxFailures: 3, pollInterval: 20, heartbeat: 5_000 };
  });
  after(() => {
    StatusStreamController.defaults = defaults;
  });
  beforeEach(() => {
    proxy = new FakeProxy();
    proxy.on('POST', '/checkouts', () => json(checkoutCreated(), 201));
    proxy.stream(/^\/checkouts\/[^/]+\/events$/);
    opened = [];
    openResult = fakeWindow();
    navigated = [];
    window.open = (...args: unknown[]) => (opened.push(args), openResult);
  });
  afterEach(() => {
    window.open = realOpen;
    proxy.restore();
  });

  /** A stand-in for the window `window.open` returns: records where it was sent and whether it was closed. */
  function fakeWindow() {
    const win = { sentTo: [] as string[], closed: false, opener: {} as unknown, focus() {}, close() { win.closed = true; },
      location: { replace: (url: string) => void win.sentTo.push(url) } };
    return win as unknown as Window & typeof win;
  }
  const sentTo = () => (openResult as ReturnType<typeof fakeWindow>).sentTo;

  async function mount(mode = 'redirect', label = html``) {
    const el = await fixture<CheckoutButton>(html`<checkout-button token=${TOKEN} mode=${mode}>${label}</checkout-button>`);
    el.navigate = (url) => navigated.push(url);
    return el;
  }
  const stream = (n = 1) => proxy.streams[n - 1] as SseStream;
  async function open(el?: CheckoutButton) {
    el ??= await mount();
    part(el, 'button')!.click();
    await stateIs(el, 'open');
    await waitUntil(() => proxy.streams.length > 0, 'stream opened');
    return el;
  }

  it('starts idle: a button saying "Pay now" unless the page gives a label, accessible', async () => {
    const el = await mount();
    expect(el.state).to.equal('idle');
    expect(el.matches(':state(idle)')).to.be.true;
    const slot = part(el, 'button')!.querySelector('slot')!;
    expect(slot.textContent).to.equal('Pay now');
    await expect(el).to.be.accessible();
    const labelled = await mount('redirect', html`Pay GHS 50 with Hubtel`);
    const assigned = labelled.shadowRoot!.querySelector('slot')!.assignedNodes();
    expect(assigned.map((n) => n.textContent).join('')).to.equal('Pay GHS 50 with Hubtel');
    await expect(labelled).to.be.accessible();
  });

  it('creates one session for a fast double click and sends the customer to it', async () => {
    const gate = deferred<Response>();
    proxy.on('POST', '/checkouts', () => gate.promise);
    const el = await mount();
    part(el, 'button')!.click();
    part(el, 'button')!.click();
    await stateIs(el, 'creating');
    expect(el.matches(':state(creating)')).to.be.true;
    expect(part<HTMLButtonElement>(el, 'button')!.disabled).to.be.true;
    expect(part(el, 'button')!.getAttribute('aria-busy')).to.equal('true');
    expect(text(el, 'status')).to.equal('Opening the checkout…');
    await expect(el).to.be.accessible();

    const event = oneEvent(el, 'checkout-opened');
    gate.resolve(json(checkoutCreated(), 201));
    expect((await event).detail).to.deep.equal({ checkoutId: 'chk_1', checkoutUrl: URL_1, mode: 'redirect' });
    await stateIs(el, 'open');
    expect(proxy.calls('POST', '/checkouts')).to.have.length(1);
    expect(proxy.calls('POST', '/checkouts')[0]!.body).to.deep.equal({});
    expect(navigated).to.deep.equal([URL_1]);
    expect(opened).to.deep.equal([]);
    await waitUntil(() => proxy.streams.length == 1);
    expect(stream().request.path).to.equal('/checkouts/chk_1/events');
    expect(text(el, 'status')).to.equal('Finish paying on the checkout page.');
    await expect(el).to.be.accessible();
  });

  it('opens a popup in popup mode, and falls back to redirect when it is blocked', async () => {
    const el = await mount('popup');
    const event = oneEvent(el, 'checkout-opened');
    part(el, 'button')!.click();
    expect((await event).detail.mode).to.equal('popup');
    // Opened blank inside the click (before the session existed), then sent to the page with no opener.
    expect(opened).to.deep.equal([['about:blank', 'merchant-elements-checkout', 'popup,width=480,height=720']]);
    expect(sentTo()).to.deep.equal([URL_1]);
    expect(openResult!.opener).to.equal(null);
    expect(navigated).to.deep.equal([]);

    openResult = null;
    const blocked = await mount('popup');
    const fallback = oneEvent(blocked, 'checkout-opened');
    part(blocked, 'button')!.click();
    expect((await fallback).detail.mode).to.equal('redirect');
    expect(navigated).to.deep.equal([URL_1]);
  });

  it('closes its popup in Chromium when the provider sends it back to the shop’s return page', async () => {
    // A real popup, no opener, sent to a page of this origin that calls closeCheckoutPopup().
    const returnUrl = `${location.origin}/test/elements/pages/checkout-return.html?checkoutId=chk_1&status=completed`;
    proxy.on('POST', '/checkouts', () => json(checkoutCreated({ checkoutUrl: returnUrl }), 201));
    let popup: Window | null = null;
    window.open = (...args: Parameters<typeof window.open>) => (popup = realOpen.apply(window, args));
    const el = await mount('popup');
    const button = part(el, 'button')!.getBoundingClientRect();
    // A real click: a browser opens a popup only with the user's activation.
    await sendMouse({ type: 'click', position: [Math.round(button.x + button.width / 2), Math.round(button.y + button.height / 2)] });
    await stateIs(el, 'open');
    await waitUntil(() => popup?.closed, 'the popup closed itself', { timeout: 8_000 });
    expect(el.state).to.equal('open');
  });

  it('leaves the return page a note for its popup only, which that checkout’s page takes once', async () => {
    const realClose = window.close;
    let closes = 0;
    window.close = () => void closes++;
    try {
      localStorage.clear();
      await open(await mount('tab'));
      expect(closeCheckoutPopup('chk_1'), 'not a tab').to.be.false;
      openResult = fakeWindow();
      await open(await mount('popup'));
      expect(closeCheckoutPopup('chk_other'), 'not another checkout').to.be.false;
      expect(closeCheckoutPopup('chk_1')).to.be.true;
      expect(closeCheckoutPopup('chk_1'), 'once').to.be.false;
      expect(closes).to.equal(1);
      openResult = fakeWindow();
      await open(await mount('popup'));
      expect(closeCheckoutPopup(null), 'a return page that does not know its checkout').to.be.true;
    } finally {
      window.close = realClose;
      localStorage.clear();
    }
  });

  it('opens a tab in tab mode, and falls back to redirect when it is blocked', async () => {
    const el = await mount('tab');
    const event = oneEvent(el, 'checkout-opened');
    part(el, 'button')!.click();
    expect((await event).detail.mode).to.equal('tab');
    expect(opened).to.deep.equal([['about:blank', '_blank']]);
    expect(sentTo()).to.deep.equal([URL_1]);

    openResult = null;
    const blocked = await mount('tab');
    const fallback = oneEvent(blocked, 'checkout-opened');
    part(blocked, 'button')!.click();
    expect((await fallback).detail.mode).to.equal('redirect');
    expect(navigated).to.deep.equal([URL_1]);
  });

  it('opens the window within the click, before a slow session answer, and closes it when creation fails', async () => {
    let answer!: (r: Response) => void;
    proxy.on('POST', '/checkouts', () => new Promise<Response>((resolve) => (answer = resolve)));
    const el = await mount('popup');
    part(el, 'button')!.click();
    // Still waiting for the proxy, yet the popup exists: a browser keeps the click's activation only briefly.
    expect(opened).to.have.length(1);
    await stateIs(el, 'creating');
    answer(json({ error: 'UPSTREAM_UNAVAILABLE', message: 'down', details: { retryable: true } }, 503));
    await stateIs(el, 'error');
    expect((openResult as ReturnType<typeof fakeWindow>).closed).to.be.true;
    expect(sentTo()).to.deep.equal([]);
  });

  for (const mode of ['popup', 'tab']) {
    it(`brings the ${mode} forward on a second click while open, and opens the same page again once it is closed`, async () => {
      const win = openResult as ReturnType<typeof fakeWindow>;
      let focused = 0;
      win.focus = () => void focused++;
      const el = await open(await mount(mode));
      expect(focused).to.equal(1);
      part(el, 'button')!.click();
      await sleep(10);
      expect(opened, 'no second tab').to.have.length(1);
      expect(focused).to.equal(2);
      win.closed = true;
      part(el, 'button')!.click();
      await sleep(10);
      expect(opened).to.have.length(2);
      expect(opened[1]![0]).to.equal(URL_1);
      expect(proxy.calls('POST', '/checkouts'), 'no second session').to.have.length(1);
    });
  }

  for (const url of ['javascript:alert(1)', 'http://pay.example.test/checkout/chk_1', 'data:text/html,<p>pay', 'ftp://x.test/']) {
    it(`never opens a checkout page at ${url}, and says why`, async () => {
      proxy.on('POST', '/checkouts', () => json(checkoutCreated({ checkoutUrl: url }), 201));
      for (const mode of ['redirect', 'popup']) {
        const el = await mount(mode);
        part(el, 'button')!.click();
        await stateIs(el, 'error');
        expect(text(el, 'error-message')).to.equal('The checkout page address is not safe, so it was not opened. Contact the shop.');
        expect(sentTo()).to.deep.equal([]);
        expect(navigated).to.deep.equal([]);
        if (mode == 'popup') expect((openResult as ReturnType<typeof fakeWindow>).closed, 'the blank popup closed').to.be.true;
        await expect(el).to.be.accessible();
      }
    });
  }

  it('says why the order cannot be paid here when it is being paid by mobile money', async () => {
    proxy.on('POST', '/checkouts', () => problem(409, 'ORDER_IN_OTHER_PAYMENT', { method: 'mobile-money', status: 'PENDING' }));
    const el = await mount('popup');
    part(el, 'button')!.click();
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal('This order is being paid by mobile money. Finish there, or start a new order.');
    expect((openResult as ReturnType<typeof fakeWindow>).closed).to.be.true;
  });

  for (const [code, details, sentence] of [
    ['ORDER_IN_OTHER_PAYMENT', { method: 'mobile-money', status: 'completed' }, 'This order is already paid.'],
    ['PAYMENT_UNCONFIRMED', { method: 'mobile-money', status: 'UNKNOWN', retryable: true }, 'An earlier payment is still being confirmed. Try again in a minute.'],
    ['REFERENCE_CONFLICT', {}, 'This order cannot be paid here. Contact the shop.'],
  ] as const) {
    it(`says ${code} (${JSON.stringify(details)}) in its own words`, async () => {
      proxy.on('POST', '/checkouts', () => problem(409, code, details));
      const el = await mount();
      part(el, 'button')!.click();
      await stateIs(el, 'error');
      expect(text(el, 'error-message')).to.equal(sentence);
    });
  }

  it('opens http: pages on this machine (the sandbox)', async () => {
    proxy.on('POST', '/checkouts', () => json(checkoutCreated({ checkoutUrl: 'http://127.0.0.1:4010/checkout/chk_1' }), 201));
    const el = await open();
    expect(navigated).to.deep.equal(['http://127.0.0.1:4010/checkout/chk_1']);
    expect(el.state).to.equal('open');
    // A relative address is the page's own origin: the page's scheme decides (this test page is on localhost).
    proxy.on('POST', '/checkouts', () => json(checkoutCreated({ checkoutUrl: 'hosted-checkout.html?chk_2' }), 201));
    await open(await mount());
    expect(navigated[1]).to.equal('hosted-checkout.html?chk_2');
  });

  it('completes when the status stream says so', async () => {
    const el = await open();
    const event = oneEvent(el, 'checkout-completed');
    stream().status(checkout({ status: 'processing' }), '1');
    stream().status(checkout({ status: 'completed' }), '2');
    expect((await event).detail).to.deep.equal({ checkoutId: 'chk_1' });
    await stateIs(el, 'completed');
    expect(el.matches(':state(completed)')).to.be.true;
    expect(text(el, 'status')).to.equal('Payment received. Thank you!');
    expect(part<HTMLButtonElement>(el, 'button')!.disabled).to.be.true;
    await expect(el).to.be.accessible();
  });

  for (const [status, sentence] of [
    ['failed', 'The payment did not go through.'],
    ['cancelled', 'The payment was cancelled.'],
    ['expired', 'The checkout expired. Start again.'],
  ] as const) {
    it(`reports a ${status} checkout and lets the customer start again`, async () => {
      const el = await open();
      const event = oneEvent(el, `checkout-${status}`);
      stream().status(checkout({ status }));
      expect((await event).detail).to.deep.equal({ checkoutId: 'chk_1' });
      await stateIs(el, status);
      expect(el.matches(`:state(${status})`)).to.be.true;
      expect(el.shadowRoot!.textContent).to.contain(sentence);
      await expect(el).to.be.accessible();
      proxy.on('POST', '/checkouts', () => json(checkoutCreated({ checkoutId: 'chk_2', checkoutUrl: 'https://pay.example.test/c/2' }), 201));
      part(el, 'button')!.click();
      await stateIs(el, 'open');
      expect(navigated).to.deep.equal([URL_1, 'https://pay.example.test/c/2']);
    });
  }

  it('shows a failure to create the session in its own words, and tries again on click', async () => {
    proxy.on('POST', '/checkouts', offline);
    const el = await mount();
    part(el, 'button')!.click();
    await stateIs(el, 'error');
    expect(el.matches(':state(error)')).to.be.true;
    expect(text(el, 'error-message')).to.equal('No connection. Check your data and try again.');
    await expect(el).to.be.accessible();
    proxy.on('POST', '/checkouts', () => json(checkoutCreated(), 201));
    part(el, 'button')!.click();
    await stateIs(el, 'open');
    expect(text(el, 'error-message')).to.equal('');
  });

  it('recovers when the stream drops while the page is open', async () => {
    const el = await open();
    stream().status(checkout(), '3');
    await sleep(20);
    stream().drop();
    await waitUntil(() => proxy.streams.length == 2, 'reconnected');
    expect(stream(2).request.headers.get('last-event-id')).to.equal('3');
    stream(2).status(checkout({ status: 'completed' }));
    await stateIs(el, 'completed');
  });

  it('starts over when its token changes mid-flow', async () => {
    const el = await open();
    el.token = fakeToken({ scope: 'checkout', reference: 'ORDER-10' });
    await stateIs(el, 'idle');
    await waitUntil(() => stream().request.signal!.aborted, 'stopped watching the old session');
  });

  it('speaks French with lang="fr" and takes a custom strings table', async () => {
    const el = await fixture<CheckoutButton>(html`<checkout-button lang="fr" token=${TOKEN}></checkout-button>`);
    expect(el.shadowRoot!.querySelector('slot')!.textContent).to.equal('Payer maintenant');
    el.strings = { label: 'Régler la commande' };
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('slot')!.textContent).to.equal('Régler la commande');
    await expect(el).to.be.accessible();
  });

  it('can be used with the keyboard alone', async () => {
    const before = document.createElement('input');
    document.body.prepend(before);
    try {
      const el = await mount();
      before.focus();
      await sendKeys({ press: 'Tab' });
      expect(el.shadowRoot!.activeElement).to.equal(part(el, 'button'));
      await sendKeys({ press: 'Enter' });
      await stateIs(el, 'open');
      expect(navigated).to.deep.equal([URL_1]);
    } finally {
      before.remove();
    }
  });
});
