// What <pay-by-mobile> shows from its first paint: where the token's order stands (GET /order), so that a
// second tab, a reload or a spent order shows the truth before anyone types a number (issue 20, items 3 and 4).
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import '../../src/elements/pay-by-mobile/index.js';
import type { PayByMobile } from '../../src/elements/pay-by-mobile/index.js';
import '../../src/elements/translations/fr.js';
import { type FakeProxy, account, fakeToken, json, offline, order, payment, problem, prompt } from './fake-proxy.js';
import { paymentProxy } from './payment-proxy.js';
import { deferred, part, stateIs, text, typeInto } from './helpers.js';

const TOKEN = fakeToken({ scope: 'payment', amount: 12.5, referenceNo: 'ORDER-123', narration: 'Order 123' });

describe('<pay-by-mobile> and where its order stands', () => {
  const fake = paymentProxy();
  let proxy: FakeProxy;
  beforeEach(() => void (proxy = fake.proxy));

  const mount = (token = TOKEN) => fixture<PayByMobile>(html`<pay-by-mobile token=${token}></pay-by-mobile>`);
  /** A new order's element, its account for `number` looked up: the confirmation asked. */
  async function confirming(token = TOKEN, number = '024 000 0001') {
    const el = await mount(token);
    await stateIs(el, 'idle');
    typeInto(part<HTMLInputElement>(el, 'phone-input')!, number);
    part(el, 'continue-button')!.click();
    await stateIs(el, 'confirm');
    return el;
  }
  const stream = () => fake.stream();

  it('draws the form at once, reading the order meanwhile, and looks up no account before the order answers', async () => {
    const gate = deferred<Response>();
    proxy.on('GET', '/order', () => gate.promise);
    const el = await mount();
    expect(el.state).to.equal('idle');
    expect(el.matches(':state(idle)')).to.be.true;
    await waitUntil(() => text(el, 'amount') == 'GHS 12.50', 'the amount');
    const input = part<HTMLInputElement>(el, 'phone-input')!;
    expect(input, 'the form, before the order answers').to.exist;
    expect(input.readOnly || input.disabled, 'usable').to.be.false;
    expect(text(el, 'status')).to.equal('');
    expect(proxy.calls('GET', '/order')[0]!.headers.get('authorization')).to.equal(`Bearer ${TOKEN}`);
    await expect(el).to.be.accessible();

    typeInto(input, '024 000 0001');
    part(el, 'continue-button')!.click();
    await stateIs(el, 'looking-up');
    await el.updateComplete;
    expect(proxy.calls('POST', '/accounts/lookup'), 'nothing sent for the order before it is known').to.have.length(0);
    gate.resolve(json(order()));
    await stateIs(el, 'confirm');
    expect(proxy.calls('POST', '/accounts/lookup').map((r) => r.body)).to.deep.equal([{ msisdn: '024 000 0001' }]);
  });

  it('switches to the payment the order waits on when it answers, keeping what was typed, the focus on what comes next', async () => {
    const gate = deferred<Response>();
    proxy.on('GET', '/order', () => gate.promise);
    const el = await mount();
    const input = part<HTMLInputElement>(el, 'phone-input')!;
    input.focus();
    typeInto(input, '024 000 0009');
    gate.resolve(json(order({ next: 'payment', payment: prompt(10, 120), attemptsLeft: 2 })));
    await stateIs(el, 'pending');
    expect(part(el, 'phone-input'), 'no form: the order waits on a phone').to.equal(null);
    expect(text(el, 'status')).to.equal('Approve GHS 12.50 on 026 *** **04.');
    expect(el.shadowRoot!.activeElement, 'not the page\'s body').to.equal(part(el, 'check-button'));
    await waitUntil(() => proxy.streams.length == 1, 'watching it');
    expect(proxy.calls('POST', '/payments'), 'nothing sent').to.have.length(0);

    // Declined there: another try starts from the number typed before.
    stream().status(payment({ status: 'CANCELLED', attemptsLeft: 2 }));
    await stateIs(el, 'cancelled');
    part(el, 'retry-button')!.click();
    await stateIs(el, 'idle');
    expect(part<HTMLInputElement>(el, 'phone-input')!.value).to.equal('024 000 0009');
  });

  it('holds a Continue pressed before the order answers, then follows the order: its payment, or its checkout', async () => {
    for (const [answer, state] of [
      [order({ next: 'payment', payment: prompt(5, 120) }), 'pending'],
      [order({ next: 'other-method', otherMethod: { method: 'checkout', status: 'processing' } }), 'error'],
    ] as const) {
      const gate = deferred<Response>();
      proxy.on('GET', '/order', () => gate.promise);
      const el = await mount();
      typeInto(part<HTMLInputElement>(el, 'phone-input')!, '024 000 0001');
      part(el, 'continue-button')!.click();
      await stateIs(el, 'looking-up');
      gate.resolve(json(answer));
      await stateIs(el, state);
      await el.updateComplete;
      expect(proxy.calls('POST', '/accounts/lookup'), 'no account looked up for an order that is not open').to.have.length(0);
      expect(proxy.calls('POST', '/payments')).to.have.length(0);
      el.remove();
    }
  });

  it('reads the order again when moved in the page before it answered (the move stopped the read)', async () => {
    const first = deferred<Response>();
    proxy.on('GET', '/order', () => first.promise);
    const el = await mount();
    proxy.on('GET', '/order', order({ next: 'payment', payment: prompt(5, 120) }));
    const parent = el.parentElement!;
    el.remove();
    parent.append(el);
    await stateIs(el, 'pending');
    const reads = proxy.calls('GET', '/order');
    expect(reads).to.have.length(2);
    expect(reads[0]!.signal!.aborted, 'the first read stopped with the move').to.be.true;
  });

  it('shows a second tab the payment waiting on the phone from the start: the number, its age and the time left', async () => {
    proxy.on('GET', '/order', order({ next: 'payment', payment: prompt(42, 120, { charge: 0.13, totalAmount: 12.63 }) }));
    const pendingEvent = new Promise<string>((resolve) => document.addEventListener('payment-pending', (e) => resolve(e.detail.reference), { once: true }));
    const el = await mount();
    expect(await pendingEvent).to.equal('ORDER-123-1');
    await stateIs(el, 'pending');
    expect(part(el, 'phone-input'), 'no number to type: the order waits on one').to.equal(null);
    expect(text(el, 'amount')).to.equal('GHS 12.63');
    expect(text(el, 'status')).to.equal('Approve GHS 12.63 (GHS 12.50 + GHS 0.13 charge) on 026 *** **04.');
    expect(el.shadowRoot!.querySelector('.links')!.textContent!.replace(/\s+/g, ' ')).to.match(/^ ?Sent 0:4[23] ago\. 1:1[78] left Check again ?$/);
    const progress = part<HTMLProgressElement>(el, 'progress')!;
    expect(progress.max).to.equal(120_000);
    expect(progress.value).to.be.within(41_000, 44_000);
    await waitUntil(() => proxy.streams.length == 1, 'watching it');
    expect(stream().request.path).to.equal('/payments/ORDER-123-1/events');
    expect(proxy.calls('POST', '/payments'), 'nothing sent').to.have.length(0);
    await expect(el).to.be.accessible();
    stream().status(payment({ status: 'COMPLETED' }));
    await stateIs(el, 'completed');
  });

  it("counts the prompt's age on the proxy's clock, whatever this device's says", async () => {
    const date = new Date(Date.now() + 5 * 60_000).toUTCString();
    // The proxy's clock is 5 minutes ahead: its prompt was sent 42 s ago by its own clock.
    const sent = prompt(42 - 300, 120 + 300, {});
    sent.promptExpiresAt = new Date(Date.parse(sent.sentAt!) + 120_000).toISOString();
    proxy.on('GET', '/order', () => new Response(JSON.stringify(order({ next: 'payment', payment: sent })), { headers: { date, 'content-type': 'application/json' } }));
    const el = await mount();
    await stateIs(el, 'pending');
    // (Its Date header has whole seconds: a second either way.)
    expect(el.shadowRoot!.querySelector('.links')!.textContent).to.match(/Sent 0:4[1-4] ago\.\s+1:(1[6-9]|20) left/);
  });

  it('invents no time when the network\'s prompt lifetime is unknown, and stops waiting `timeout` s after the prompt was sent', async () => {
    proxy.on('GET', '/order', order({ next: 'payment', payment: prompt(42, null) }));
    const el = await fixture<PayByMobile>(html`<pay-by-mobile token=${TOKEN} timeout="43"></pay-by-mobile>`);
    el.lateInterval = 100_000;
    await stateIs(el, 'pending');
    expect(el.shadowRoot!.querySelector('.links')!.textContent!.replace(/\s+/g, ' ').trim()).to.match(/^Sent 0:4[23] ago\. How long it stays open is up to your network\. Check again$/);
    expect(part<HTMLProgressElement>(el, 'progress')!.position, 'indeterminate').to.equal(-1);
    await stateIs(el, 'timed-out');
    expect(text(el, 'status')).to.equal(
      'No answer from the phone yet. The prompt may still be open on 026 *** **04: approve or decline it there, or wait. You may leave: the shop will be told how it ends.',
    );
    expect(text(el, 'retry-button')).to.equal('Check again');
    await expect(el).to.be.accessible();
  });

  it('says a prompt past its lifetime expired, and waits on for the network to end it (the order stays blocked meanwhile)', async () => {
    proxy.on('GET', '/order', order({ next: 'payment', payment: prompt(125, 120), attemptsLeft: 2 }));
    const el = await mount();
    await stateIs(el, 'pending');
    const at = new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(Date.now() - 5_000);
    expect(text(el, 'status')).to.equal(`The prompt expired at ${at}; the network has yet to confirm.`);
    expect(text(el, 'way-out'), 'no "decline it" on a prompt that is gone').to.equal('You may leave: the shop will be told how it ends.');
    // No age that would stop counting, no time left: the sentence says when it ended.
    expect(el.shadowRoot!.querySelector('.links')!.textContent!.trim()).to.equal('Check again');
    await waitUntil(() => proxy.streams.length == 1, 'still watching');
    await expect(el).to.be.accessible();
    el.lang = 'fr';
    await el.updateComplete;
    const à = new Intl.DateTimeFormat('fr', { timeStyle: 'short' }).format(Date.now() - 5_000);
    expect(text(el, 'status')).to.equal(`La demande a expiré à ${à} ; le réseau doit encore le confirmer.`);

    // The network ends it: another try is open, from the number (this tab looked no account up).
    el.lang = 'en';
    stream().status(payment({ status: 'FAILED', attemptsLeft: 2 }));
    await stateIs(el, 'failed');
    expect(text(el, 'error-message')).to.equal('The payment did not go through.');
    part(el, 'retry-button')!.click();
    await stateIs(el, 'idle');
    expect(part(el, 'phone-input')).to.exist;
  });

  it('offers a spent order no form: the last refusal, no attempts left, and tells the page', async () => {
    proxy.on('GET', '/order', order({ next: 'exhausted', attemptsLeft: 0, payment: payment({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS', attempt: 3, attemptsLeft: 0 }) }));
    const blocked = new Promise<string>((resolve) => document.addEventListener('payment-blocked', (e) => resolve(e.detail.code), { once: true }));
    const el = await mount();
    expect(await blocked).to.equal('ATTEMPTS_EXHAUSTED');
    await stateIs(el, 'failed');
    expect(text(el, 'error-message')).to.equal(
      'Not enough money in the account. No attempts left for this order. Start a new order or choose another way to pay.',
    );
    expect(el.shadowRoot!.querySelectorAll('input, button')).to.have.length(0);
    expect(proxy.calls('POST', '/accounts/lookup')).to.have.length(0);
    await expect(el).to.be.accessible();
  });

  it('says a spent order with no payment to show is spent', async () => {
    proxy.on('GET', '/order', order({ next: 'exhausted', attemptsLeft: 0 }));
    const el = await mount();
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal('No attempts left for this order. Start a new order or choose another way to pay.');
    expect(el.shadowRoot!.querySelectorAll('input, button')).to.have.length(0);
  });

  it('says an order the hosted checkout holds is being paid there', async () => {
    proxy.on('GET', '/order', order({ next: 'other-method', otherMethod: { method: 'checkout', status: 'processing' } }));
    const event = new Promise<string>((resolve) => document.addEventListener('payment-blocked', (e) => resolve(e.detail.message), { once: true }));
    const el = await mount();
    const sentence = 'This order is being paid on the checkout page. Finish there, or start a new order.';
    expect(await event).to.equal(sentence);
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal(sentence);
    expect(part(el, 'phone-input')).to.equal(null);
  });

  it('shows a payment the proxy stopped waiting for as timed out, with "Check again"', async () => {
    proxy.on('GET', '/order', order({ next: 'payment', payment: payment({ status: 'TIMED_OUT' }) }));
    const el = await mount();
    el.lateInterval = 100_000;
    await stateIs(el, 'timed-out');
    proxy.on('GET', '/payments/ORDER-123-1', () => json(payment({ status: 'COMPLETED' })));
    part(el, 'retry-button')!.click();
    await stateIs(el, 'completed');
  });

  it('shows a paid order paid, and says so to the page', async () => {
    proxy.on('GET', '/order', order({ next: 'payment', payment: payment({ status: 'COMPLETED', completedAt: new Date().toISOString() }) }));
    const completed = new Promise<string>((resolve) => document.addEventListener('payment-completed', (e) => resolve(e.detail.reference), { once: true }));
    const el = await mount();
    expect(await completed).to.equal('ORDER-123-1');
    await stateIs(el, 'completed');
    expect(text(el, 'status')).to.equal('Payment received. Thank you!');
  });

  it('says a payment whose answer was lost is being confirmed, offers nothing that starts a new try, and follows it', async () => {
    proxy.on('GET', '/order', order({ next: 'payment', payment: payment({ status: 'UNKNOWN' }) }));
    const el = await mount();
    await stateIs(el, 'unknown');
    expect(el.matches(':state(unknown)')).to.be.true;
    expect(text(el, 'status')).to.equal('The provider is confirming this payment; the shop will tell you how it ends.');
    expect(el.shadowRoot!.querySelectorAll('input, button, progress')).to.have.length(0);
    await waitUntil(() => proxy.streams.length == 1, 'watching it');
    await expect(el).to.be.accessible();
    el.lang = 'fr';
    await el.updateComplete;
    expect(text(el, 'status')).to.equal('Le fournisseur confirme ce paiement ; la boutique vous dira comment il se termine.');
    stream().status(payment({ status: 'UNKNOWN' }));
    stream().status(payment({ status: 'COMPLETED' }));
    await stateIs(el, 'completed');
  });

  it('turns to "being confirmed" when a wait loses its answer, with no countdown left', async () => {
    const el = await confirming();
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'pending');
    await waitUntil(() => proxy.streams.length == 1);
    stream().status(payment({ status: 'UNKNOWN' }));
    await stateIs(el, 'unknown');
    expect(part(el, 'progress')).to.equal(null);
    expect(part(el, 'check-button')).to.equal(null);
    expect(stream().request.signal!.aborted, 'still watching').to.be.false;
  });

  for (const [name, answer] of [
    ['no GET /order (an older proxy)', () => problem(404, 'NOT_FOUND')],
    ['no connection', offline],
    ['a busy proxy', () => problem(503, 'UPSTREAM_UNAVAILABLE', { retryable: true })],
  ] as const) {
    it(`keeps the form with ${name}: the proxy's answers to it say the rest`, async () => {
      proxy.on('GET', '/order', answer);
      const el = await confirming();
      expect(text(el, 'error-message')).to.equal('');
    });
  }

  it('reads no order before it has a token (a page that fetches one), then reads the token\'s', async () => {
    const el = await fixture<PayByMobile>(html`<pay-by-mobile></pay-by-mobile>`);
    expect(el.state).to.equal('idle');
    expect(proxy.calls('GET', '/order'), 'no call that could only be refused').to.have.length(0);
    el.token = TOKEN;
    await stateIs(el, 'idle');
    expect(proxy.calls('GET', '/order')).to.have.length(1);
  });

  it('says an expired form is expired rather than offer one that cannot work', async () => {
    proxy.on('GET', '/order', () => problem(401, 'TOKEN_EXPIRED'));
    const el = await mount();
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal('This form has expired. Reload the page.');
  });

  it('shows before Pay what the customer will approve when the configuration estimates the charge, in both languages', async () => {
    proxy.on('GET', '/order', order({ chargeEstimate: { charge: 0.48, totalAmount: 47.98 } }));
    proxy.on('POST', '/accounts/lookup', account({ accountName: 'ESI O.', network: 'AirtelTigo', msisdn: '233260000004' }));
    const el = await confirming(fakeToken({ scope: 'payment', amount: 47.5, referenceNo: 'ORDER-123' }), '026 000 0004');
    expect(text(el, 'account')).to.equal('Pay about GHS 47.98 (GHS 47.50 + about GHS 0.48 network charge) from ESI O. on AirtelTigo?');
    expect(text(el, 'confirm-button')).to.equal('Pay about GHS 47.98');
    await expect(el).to.be.accessible();
    el.lang = 'fr';
    await el.updateComplete;
    expect(text(el, 'account')).to.equal('Payer environ 47,98 GHS (47,50 GHS + environ 0,48 GHS de frais du réseau) depuis le compte ESI O. (AirtelTigo) ?');
    expect(text(el, 'confirm-button')).to.equal('Payer environ 47,98 GHS');
  });

  it("prefers the account lookup's estimate (the number's network) to the order's", async () => {
    proxy.on('GET', '/order', order({ chargeEstimate: { charge: 0.5, totalAmount: 13 } }));
    proxy.on('POST', '/accounts/lookup', account({ chargeEstimate: { charge: 0.13, totalAmount: 12.63 } }));
    const el = await confirming();
    expect(text(el, 'account')).to.equal('Pay about GHS 12.63 (GHS 12.50 + about GHS 0.13 network charge) from KWAME M. on MTN?');
  });

  it('says an earlier try still being confirmed stops a new one for now, and lets the customer try again later', async () => {
    proxy.on('POST', '/payments', () => problem(409, 'PAYMENT_UNCONFIRMED', { method: 'mobile-money', status: 'UNKNOWN', reference: 'ORDER-123-1', retryable: true }));
    const el = await confirming();
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal('An earlier payment is still being confirmed. Try again in a minute.');
    expect(part(el, 'confirm-button'), 'Pay again, later').to.exist;
    el.lang = 'fr';
    await el.updateComplete;
    expect(text(el, 'error-message')).to.equal('Un paiement précédent est en cours de confirmation. Réessayez dans une minute.');
  });

  it('says an order the provider holds under other terms cannot be paid here, and tells the page', async () => {
    proxy.on('POST', '/payments', () => problem(409, 'REFERENCE_CONFLICT'));
    const el = await confirming();
    const event = oneEvent(el, 'payment-blocked');
    part(el, 'confirm-button')!.click();
    expect((await event).detail).to.deep.equal({ code: 'REFERENCE_CONFLICT', message: 'This order cannot be paid here. Contact the shop.' });
    expect(part(el, 'confirm-button')).to.equal(null);
    expect(part(el, 'change-button')).to.equal(null);
  });
});
