import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { emulateMedia, sendKeys } from '@web/test-runner-commands';
import '../../src/elements/pay-by-mobile/index.js';
import type { PayByMobile } from '../../src/elements/pay-by-mobile/index.js';
import '../../src/elements/translations/fr.js';
import { type FakeProxy, account, fakeToken, hang, json, offline, order, payment, problem, prompt } from './fake-proxy.js';
import { ProxyClient } from '../../src/elements/shared/proxy-client.js';
import { paymentProxy } from './payment-proxy.js';
import { deferred, part, sleep, stateIs, tabTo, text, typeInto } from './helpers.js';

const TOKEN = fakeToken({ scope: 'payment', amount: 12.5, referenceNo: 'ORDER-123', narration: 'Order 123' });
/** What the customer reads while a prompt's lifetime is unknown, once the element stopped waiting. */
const TIMED_OUT = 'No answer from the phone yet. The prompt may still be open on your phone: approve or decline it there, or wait. You may leave: the shop will be told how it ends.';

describe('<pay-by-mobile>', () => {
  const fake = paymentProxy();
  let proxy: FakeProxy;
  beforeEach(() => void (proxy = fake.proxy));

  /** The element, its order asked for (the form is there at once; the account is looked up once it answered). */
  async function mount(token = TOKEN) {
    const el = await fixture<PayByMobile>(html`<pay-by-mobile token=${token}></pay-by-mobile>`);
    await waitUntil(() => proxy.calls('GET', '/order').length > 0, 'the order asked for');
    await el.updateComplete;
    return el;
  }
  const stream = (n = 1) => fake.stream(n);
  async function confirm(el?: PayByMobile) {
    el ??= await mount();
    await el.updateComplete;
    typeInto(part<HTMLInputElement>(el, 'phone-input')!, '024 000 0001');
    part(el, 'continue-button')!.click();
    await stateIs(el, 'confirm');
    return el;
  }
  async function pending(el?: PayByMobile) {
    el = await confirm(el);
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'pending');
    await waitUntil(() => proxy.streams.length > 0, 'stream opened');
    return el;
  }

  it('starts idle with the amount from the token and a labelled number input, accessible', async () => {
    const el = await mount();
    expect(el.state).to.equal('idle');
    expect(el.matches(':state(idle)')).to.be.true;
    await waitUntil(() => text(el, 'amount') == 'GHS 12.50', 'the amount');
    expect(text(el, 'error-message')).to.equal('');
    expect(text(el, 'status')).to.equal('');
    const input = part<HTMLInputElement>(el, 'phone-input')!;
    expect(input.labels![0]!.textContent, 'the words of the hosted page').to.equal('Mobile money number');
    expect(input.type).to.equal('tel');
    expect(input.maxLength, 'a number has a length').to.equal(20);
    await expect(el).to.be.accessible();
  });

  it('looks the account up and asks to confirm the name, network and amount', async () => {
    const gate = deferred<Response>();
    proxy.on('POST', '/accounts/lookup', () => gate.promise);
    const el = await mount();
    typeInto(part<HTMLInputElement>(el, 'phone-input')!, '024 000 0001');
    part(el, 'continue-button')!.click();
    part(el, 'continue-button')!.click();
    await stateIs(el, 'looking-up');
    expect(el.matches(':state(looking-up)')).to.be.true;
    expect(part<HTMLButtonElement>(el, 'continue-button')!.disabled).to.be.true;
    expect(text(el, 'status')).to.equal('Finding the account…');
    await expect(el).to.be.accessible();
    gate.resolve(json(account()));
    await stateIs(el, 'confirm');
    expect(proxy.calls('POST', '/accounts/lookup')).to.have.length(1);
    expect(proxy.calls('POST', '/accounts/lookup')[0]!.body).to.deep.equal({ msisdn: '024 000 0001' });
    // No estimate of the charge in this shop's configuration: said before Pay that there may be one.
    expect(text(el, 'account')).to.equal('Pay GHS 12.50 from KWAME M. on MTN? Your network may add a charge.');
    expect(text(el, 'confirm-button')).to.equal('Pay GHS 12.50');
    expect(text(el, 'error-message')).to.equal('');
    await expect(el).to.be.accessible();
  });

  it('sends the payment once however fast the clicks, then waits for approval with a countdown', async () => {
    const gate = deferred<Response>();
    proxy.on('POST', '/payments', () => gate.promise);
    const el = await confirm();
    part(el, 'confirm-button')!.click();
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'paying');
    expect(text(el, 'status')).to.equal('Sending the request…');
    expect(part<HTMLButtonElement>(el, 'confirm-button')!.disabled).to.be.true;
    await expect(el).to.be.accessible();

    const event = oneEvent(el, 'payment-pending');
    gate.resolve(json(payment(), 202));
    expect((await event).detail).to.deep.equal({ reference: 'ORDER-123-1' });
    await stateIs(el, 'pending');
    expect(proxy.calls('POST', '/payments')).to.have.length(1);
    expect(proxy.calls('POST', '/payments')[0]!.body).to.deep.equal({ msisdn: '233240000001' });
    expect(text(el, 'status')).to.equal('Approve GHS 12.50 on your phone.');
    expect(text(el, 'error-message')).to.equal('');
    // A proxy that knows neither when the prompt was sent nor how long the network keeps it: no time invented.
    const progress = part<HTMLProgressElement>(el, 'progress')!;
    expect(progress.position, 'indeterminate').to.equal(-1);
    expect(el.shadowRoot!.textContent).not.to.match(/\d:\d\d/);
    expect(el.shadowRoot!.textContent).to.contain('How long it stays open is up to your network.');
    // No cancel the provider would not honour, and no dead end: the ways out that exist, in words.
    expect(text(el, 'way-out')).to.equal('Wrong number? Decline on that phone, then use another. Nothing is charged unless approved.');
    expect(part(el, 'change-button'), 'another number would be refused while this one waits').to.equal(null);
    await waitUntil(() => proxy.streams.length == 1);
    expect(stream().request.path).to.equal('/payments/ORDER-123-1/events');
    expect(stream().request.headers.get('authorization')).to.equal(`Bearer ${TOKEN}`);
    await expect(el).to.be.accessible();
  });

  it('completes when the status stream says so, and forgets the pending payment', async () => {
    const el = await pending();
    const event = oneEvent(el, 'payment-completed');
    stream().status(payment(), '1');
    stream().status(payment({ status: 'COMPLETED', completedAt: new Date().toISOString() }), '2');
    // Both references: the attempt's and the merchant's order's.
    expect((await event).detail).to.deep.equal({ reference: 'ORDER-123-1', orderReference: 'ORDER-123', amount: 12.5, currency: 'GHS' });
    await stateIs(el, 'completed');
    expect(el.matches(':state(completed)')).to.be.true;
    expect(text(el, 'status')).to.equal('Payment received. Thank you!');
    expect(text(el, 'error-message')).to.equal('');
    expect(part(el, 'retry-button')).to.be.null;
    await expect(el).to.be.accessible();
  });

  it('fails with the reason in its own words and offers a retry while attempts remain', async () => {
    const el = await pending();
    const event = oneEvent(el, 'payment-failed');
    stream().status(payment({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS', attemptsLeft: 2 }));
    expect((await event).detail).to.deep.equal({
      reference: 'ORDER-123-1',
      orderReference: 'ORDER-123',
      code: 'INSUFFICIENT_FUNDS',
      message: 'Not enough money in the account.',
      canRetry: true,
    });
    await stateIs(el, 'failed');
    expect(text(el, 'error-message')).to.equal('Not enough money in the account.');
    await expect(el).to.be.accessible();

    proxy.on('POST', '/payments', () => json(payment({ reference: 'ORDER-123-2', attempt: 2, attemptsLeft: 1 }), 202));
    const again = oneEvent(el, 'payment-pending');
    part(el, 'retry-button')!.click();
    expect((await again).detail.reference).to.equal('ORDER-123-2');
    await waitUntil(() => proxy.streams.length == 2);
    expect(stream(2).request.path).to.equal('/payments/ORDER-123-2/events');
  });

  it('a payment the provider refuses at once (insufficient funds) fails with its reason, not a generic error', async () => {
    proxy.on('POST', '/payments', () => problem(402, 'INSUFFICIENT_FUNDS', { reference: 'ORDER-123-1', attemptsLeft: 2 }));
    proxy.on('GET', '/payments/ORDER-123-1', () => json(payment({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS', attemptsLeft: 2 })));
    const el = await confirm();
    const event = oneEvent(el, 'payment-failed');
    part(el, 'confirm-button')!.click();
    expect((await event).detail).to.deep.equal({
      reference: 'ORDER-123-1',
      orderReference: 'ORDER-123',
      code: 'INSUFFICIENT_FUNDS',
      message: 'Not enough money in the account.',
      canRetry: true,
    });
    await stateIs(el, 'failed');
    expect(text(el, 'error-message')).to.equal('Not enough money in the account.');
    // Ways on: the same number once topped up, or another one.
    expect(part(el, 'retry-button')).to.not.equal(null);
    expect(part(el, 'change-button')).to.not.equal(null);
    expect(proxy.streams, 'a refused payment is not waited for').to.have.length(0);
    await expect(el).to.be.accessible();
  });

  it('offers no retry once the attempts are spent', async () => {
    const el = await pending();
    const event = oneEvent(el, 'payment-failed');
    stream().status(payment({ status: 'FAILED', attemptsLeft: 0 }));
    const { detail } = await event;
    expect(detail).to.include({ code: 'PAYMENT_FAILED', message: 'The payment did not go through.', canRetry: false });
    await stateIs(el, 'failed');
    expect(part(el, 'retry-button')).to.be.null;
  });

  it('shows a VOID attempt (it never reached the provider) as a failure to try again, nothing charged', async () => {
    const el = await pending();
    const event = oneEvent(el, 'payment-failed');
    stream().status(payment({ status: 'VOID', attemptsLeft: 2 }));
    expect((await event).detail).to.include({ code: 'UPSTREAM_UNAVAILABLE', message: 'The service is busy. Try again soon.', canRetry: true });
    await stateIs(el, 'failed');
    expect(text(el, 'error-message')).to.equal('The service is busy. Try again soon.');
    expect(text(el, 'retry-button')).to.equal('Try again');
  });

  it('reports a payment declined on the phone', async () => {
    const el = await pending();
    const event = oneEvent(el, 'payment-cancelled');
    stream().status(payment({ status: 'CANCELLED' }));
    expect((await event).detail).to.deep.equal({ reference: 'ORDER-123-1', orderReference: 'ORDER-123' });
    await stateIs(el, 'cancelled');
    expect(text(el, 'status')).to.equal('Payment declined on the phone.');
    await expect(el).to.be.accessible();
  });

  it('times out after `timeout` seconds; "Check again" reads the status once and stays honest', async () => {
    const el = await confirm();
    el.timeout = 1;
    el.lateInterval = 100_000;
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'pending');
    await stateIs(el, 'timed-out');
    expect(el.matches(':state(timed-out)')).to.be.true;
    // A way on (a check that leaves no countdown to wait), what may still be done, and that leaving is safe.
    expect(text(el, 'status')).to.equal(TIMED_OUT);
    expect(text(el, 'retry-button')).to.equal('Check again');
    await waitUntil(() => stream(1).request.signal!.aborted, 'watching stopped');
    await expect(el).to.be.accessible();

    proxy.on('GET', '/payments/ORDER-123-1', () => json(payment({ status: 'TIMED_OUT' })));
    part(el, 'retry-button')!.click();
    await waitUntil(() => text(el, 'status') == TIMED_OUT.replace('No answer from the phone yet.', 'Still waiting for the phone.'), 'honest: still waiting');
    expect(el.state, 'no new 2:00 wait').to.equal('timed-out');
    expect(proxy.calls('GET', '/payments/ORDER-123-1')).to.have.length(1);
    expect(proxy.streams, 'no new watch').to.have.length(1);
    expect(proxy.calls('POST', '/payments'), 'no second charge').to.have.length(1);

    proxy.on('GET', '/payments/ORDER-123-1', () => json(payment({ status: 'COMPLETED' })));
    const done = oneEvent(el, 'payment-completed');
    part(el, 'retry-button')!.click();
    await done;
    await stateIs(el, 'completed');
  });

  it('shows a completion that arrives after the timeout without being asked', async () => {
    const el = await pending();
    el.lateInterval = 30;
    let reads = 0;
    proxy.on('GET', '/payments/ORDER-123-1', () => json(payment({ status: ++reads < 3 ? 'TIMED_OUT' : 'COMPLETED' })));
    stream().status(payment({ status: 'TIMED_OUT' }));
    await stateIs(el, 'timed-out');
    expect(text(el, 'status'), 'quiet reads say nothing').to.equal(TIMED_OUT);
    await stateIs(el, 'completed');
    expect(reads).to.equal(3);
  });

  it('checks the status on request while waiting, without restarting the countdown', async () => {
    proxy.on('POST', '/payments', () => json(prompt(0, 120), 202));
    const el = await pending();
    await sleep(1100);
    expect(el.shadowRoot!.textContent).to.match(/1:5\d left/);
    proxy.on('GET', '/payments/ORDER-123-1', () => json(prompt(1, 120)));
    expect(text(el, 'check-button')).to.equal('Check again');
    part(el, 'check-button')!.click();
    await waitUntil(() => text(el, 'status').includes('Still waiting for the phone.'));
    expect(el.state).to.equal('pending');
    expect(el.shadowRoot!.textContent, 'the countdown goes on').to.match(/1:5\d left/);
    expect(proxy.streams, 'the same watch').to.have.length(1);
    await expect(el).to.be.accessible();
    proxy.on('GET', '/payments/ORDER-123-1', () => json(payment({ status: 'COMPLETED' })));
    part(el, 'check-button')!.click();
    await stateIs(el, 'completed');
    await waitUntil(() => stream().request.signal!.aborted, 'watching stopped');
  });

  it('ends the wait when a check finds the relay gave up (TIMED_OUT)', async () => {
    const el = await pending();
    el.lateInterval = 100_000;
    proxy.on('GET', '/payments/ORDER-123-1', () => json(payment({ status: 'TIMED_OUT' })));
    part(el, 'check-button')!.click();
    await stateIs(el, 'timed-out');
    expect(text(el, 'status')).to.equal(TIMED_OUT);
  });

  it('shows what the phone asks: the total with the charge', async () => {
    proxy.on('POST', '/payments', () => json(payment({ amount: 47.5, charge: 0.48, totalAmount: 47.98 }), 202));
    const el = await pending(await mount(fakeToken({ scope: 'payment', amount: 47.5, referenceNo: 'ORDER-123' })));
    expect(text(el, 'amount'), 'what the phone asks, not the price before the charge').to.equal('GHS 47.98');
    expect(text(el, 'status')).to.equal('Approve GHS 47.98 (GHS 47.50 + GHS 0.48 charge) on your phone.');
    el.lang = 'fr';
    await el.updateComplete;
    expect(text(el, 'status')).to.equal('Validez 47,98 GHS (47,50 GHS + 0,48 GHS de frais) sur votre téléphone.');
  });

  it('draws its form before the amount: the first render holds the amount’s line with a space, its digits come after that frame', async () => {
    const el = document.createElement('pay-by-mobile') as PayByMobile;
    el.token = TOKEN;
    document.body.append(el);
    try {
      await el.updateComplete;
      const amount = part(el, 'amount')!;
      expect(amount.textContent, 'no number formatted in the first render').to.equal('\xa0');
      expect(part(el, 'phone-input'), 'the form, drawn at once').to.exist;
      const line = amount.getBoundingClientRect().height;
      expect(line).to.be.greaterThan(0);
      await waitUntil(() => text(el, 'amount') == 'GHS 12.50', 'the amount, after the first frame');
      expect(amount.getBoundingClientRect().height, 'the same line: nothing below it moves').to.equal(line);
    } finally {
      el.remove();
    }
  });

  it("never shows an amount other than the token's, and warns of one that disagrees", async () => {
    const warn = console.warn;
    const warnings: string[] = [];
    console.warn = (m: string) => warnings.push(m);
    try {
      const el = await fixture<PayByMobile>(html`<pay-by-mobile token=${TOKEN} amount="1"></pay-by-mobile>`);
      await waitUntil(() => text(el, 'amount') == 'GHS 12.50', 'the amount');
      expect(warnings.join()).to.contain('amount 1 ignored; the token charges 12.5');
      await waitUntil(() => el.state == 'idle');
      await confirm(el);
      expect(text(el, 'account')).to.equal('Pay GHS 12.50 from KWAME M. on MTN? Your network may add a charge.');
      const free = await fixture<PayByMobile>(html`<pay-by-mobile token=${fakeToken({ referenceNo: 'R' })} amount="3"></pay-by-mobile>`);
      await waitUntil(() => free.state == 'idle' && text(free, 'amount') != '');
      expect(text(free, 'amount'), 'no amount in the token: the attribute').to.equal('GHS 3.00');
    } finally {
      console.warn = warn;
    }
  });

  it('follows a payment another tab sent to another number of the same order meanwhile, and says where', async () => {
    proxy.on('POST', '/payments', () =>
      problem(409, 'PAYMENT_IN_PROGRESS', { msisdn: '233 26 *** **04', reference: 'ORDER-123-1' }),
    );
    const el = await confirm();
    const event = oneEvent(el, 'payment-pending');
    part(el, 'confirm-button')!.click();
    expect((await event).detail.reference).to.equal('ORDER-123-1');
    await stateIs(el, 'pending');
    expect(text(el, 'status')).to.equal('Approve GHS 12.50 on 026 *** **04.');
    await waitUntil(() => proxy.streams.length == 1);
    expect(stream().request.path).to.equal('/payments/ORDER-123-1/events');
    await expect(el).to.be.accessible();
    stream().status(payment({ status: 'COMPLETED' }));
    await stateIs(el, 'completed');
  });

  it('says at once that the attempts are spent, offers no dead end, and tells the page', async () => {
    proxy.on('POST', '/payments', () => problem(409, 'ATTEMPTS_EXHAUSTED'));
    const el = await confirm();
    const event = oneEvent(el, 'payment-blocked');
    part(el, 'confirm-button')!.focus();
    part(el, 'confirm-button')!.click();
    const sentence = 'No attempts left for this order. Start a new order or choose another way to pay.';
    expect((await event).detail).to.deep.equal({ code: 'ATTEMPTS_EXHAUSTED', message: sentence });
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal(sentence);
    expect(el.shadowRoot!.activeElement === part(el, 'error-message'), 'the focus on the sentence, not lost').to.be.true;
    expect(part(el, 'change-button'), 'no "Use another number" leading nowhere').to.be.null;
    expect(part(el, 'confirm-button')).to.be.null;
    expect(part(el, 'phone-input')).to.be.null;
    await expect(el).to.be.accessible();
  });

  it('says the last failure spent the attempts, with the reason', async () => {
    const el = await pending();
    const event = oneEvent(el, 'payment-blocked');
    stream().status(payment({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS', attemptsLeft: 0 }));
    expect((await event).detail.code).to.equal('ATTEMPTS_EXHAUSTED');
    await stateIs(el, 'failed');
    expect(text(el, 'error-message')).to.equal(
      'Not enough money in the account. No attempts left for this order. Start a new order or choose another way to pay.',
    );
    expect(part(el, 'change-button')).to.be.null;
    expect(part(el, 'retry-button')).to.be.null;
  });

  for (const [code, details, sentence] of [
    ['ORDER_IN_OTHER_PAYMENT', { method: 'checkout', status: 'processing' }, 'This order is being paid on the checkout page. Finish there, or start a new order.'],
    ['ORDER_IN_OTHER_PAYMENT', { method: 'checkout', status: 'completed' }, 'This order is already paid.'],
    ['ORDER_CHANGED', {}, 'This order has changed. Reload the page to see what to pay.'],
  ] as const) {
    it(`says what ${code} (${JSON.stringify(details)}) means and what to do`, async () => {
      proxy.on('POST', '/payments', () => problem(409, code, details));
      const el = await confirm();
      const event = oneEvent(el, 'payment-blocked');
      part(el, 'confirm-button')!.click();
      expect((await event).detail).to.deep.equal({ code, message: sentence });
      expect(text(el, 'error-message')).to.equal(sentence);
      expect(part(el, 'change-button')).to.be.null;
    });
  }

  it('says the new codes in French', async () => {
    proxy.on('POST', '/payments', () => problem(409, 'ORDER_IN_OTHER_PAYMENT', { method: 'checkout', status: 'processing' }));
    const el = await fixture<PayByMobile>(html`<pay-by-mobile lang="fr" token=${TOKEN}></pay-by-mobile>`);
    await stateIs(el, 'idle');
    expect(part<HTMLInputElement>(el, 'phone-input')!.labels![0]!.textContent).to.equal('Numéro mobile money');
    await confirm(el);
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal(
      'Cette commande est en cours de paiement sur la page de paiement. Terminez-le là-bas, ou passez une nouvelle commande.',
    );
  });

  for (const [status, code, details, sentence] of [
    [400, 'INVALID_PHONE_NUMBER', {}, 'Enter a Ghanaian mobile number, like 024 123 4567.'],
    [413, 'PAYLOAD_TOO_LARGE', {}, 'That is too long. Check the number.'],
    [429, 'RATE_LIMITED', { retryAfter: 2950, scope: 'address' }, 'Too many requests from this connection. Try again in 50 min.'],
    [429, 'RATE_LIMITED', { retryAfter: 20 }, 'Too many attempts. Try again in 20 s.'],
  ] as const) {
    it(`says ${status} ${code} in its own words`, async () => {
      proxy.on('POST', '/accounts/lookup', () => problem(status, code, details));
      const el = await mount();
      typeInto(part<HTMLInputElement>(el, 'phone-input')!, '+44 7700 900123');
      part(el, 'continue-button')!.click();
      await stateIs(el, 'error');
      expect(text(el, 'error-message')).to.equal(sentence);
    });
  }

  it('shows a spinner while busy', async () => {
    proxy.on('POST', '/accounts/lookup', hang);
    const el = await mount();
    typeInto(part<HTMLInputElement>(el, 'phone-input')!, '0240000001');
    part(el, 'continue-button')!.click();
    await stateIs(el, 'looking-up');
    const status = part(el, 'status')!;
    expect(status.classList.contains('spin')).to.be.true;
    expect(getComputedStyle(status, '::before').animationName).to.equal('spin');
    await emulateMedia({ reducedMotion: 'reduce' });
    try {
      expect(getComputedStyle(status, '::before').animationName, 'still under reduced motion').to.equal('none');
    } finally {
      await emulateMedia({ reducedMotion: 'no-preference' });
    }
  });

  it('shows the relay giving up as timed out', async () => {
    const el = await pending();
    stream().status(payment({ status: 'TIMED_OUT' }));
    await stateIs(el, 'timed-out');
  });

  it('recovers when the stream drops during the wait, with Last-Event-ID', async () => {
    const el = await pending();
    stream().status(payment(), '7');
    await sleep(20);
    stream().drop();
    await waitUntil(() => proxy.streams.length == 2, 'reconnected');
    expect(stream(2).request.headers.get('last-event-id')).to.equal('7');
    stream(2).status(payment({ status: 'COMPLETED' }), '8');
    await stateIs(el, 'completed');
  });

  it('falls back to polling the payment when the stream keeps failing', async () => {
    proxy.on('GET', /^\/payments\/[^/]+\/events$/, offline);
    let reads = 0;
    proxy.on('GET', '/payments/ORDER-123-1', () => json(payment({ status: ++reads < 2 ? 'PENDING' : 'COMPLETED' })));
    const el = await confirm();
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'completed');
    expect(proxy.calls('GET', '/payments/ORDER-123-1/events')).to.have.length(3);
    expect(reads).to.equal(2);
  });

  it('resumes watching the same payment after a reload, from where the proxy says the order stands', async () => {
    const first = await pending();
    first.remove();
    await waitUntil(() => stream(1).request.signal!.aborted, 'the old element stopped watching');

    proxy.on('GET', '/order', order({ payment: payment(), next: 'payment', attemptsLeft: 2 }));
    const event = new Promise<string>((resolve) =>
      document.addEventListener('payment-pending', (e) => resolve(e.detail.reference), { once: true }),
    );
    const el = await mount(fakeToken({ scope: 'payment', amount: 12.5, referenceNo: 'ORDER-123', jti: 'new-token' }));
    expect(await event).to.equal('ORDER-123-1');
    expect(el.state).to.equal('pending');
    await waitUntil(() => proxy.streams.length == 2);
    expect(stream(2).request.path).to.equal('/payments/ORDER-123-1/events');
    expect(proxy.calls('POST', '/payments'), 'no second charge').to.have.length(1);
    stream(2).status(payment({ status: 'COMPLETED' }));
    await stateIs(el, 'completed');

    proxy.on('GET', '/order', order({ orderReference: 'ORDER-999' }));
    const other = await mount(fakeToken({ scope: 'payment', amount: 5, referenceNo: 'ORDER-999' }));
    expect(other.state, 'another order starts fresh').to.equal('idle');
    expect(proxy.calls('GET', '/order').map((r) => r.headers.get('authorization'))).to.have.length(3);
  });

  it('shows a failed lookup in its own words and lets the customer correct the number', async () => {
    proxy.on('POST', '/accounts/lookup', () => problem(404, 'ACCOUNT_NOT_FOUND'));
    const el = await mount();
    typeInto(part<HTMLInputElement>(el, 'phone-input')!, '0240000404');
    part(el, 'continue-button')!.click();
    await stateIs(el, 'error');
    expect(el.matches(':state(error)')).to.be.true;
    expect(text(el, 'error-message')).to.equal('No mobile money account on this number.');
    expect(el.shadowRoot!.textContent).not.to.contain('server text');
    expect(part(el, 'phone-input')!.getAttribute('aria-invalid')).to.equal('true');
    await expect(el).to.be.accessible();
    proxy.on('POST', '/accounts/lookup', account());
    part(el, 'continue-button')!.click();
    await stateIs(el, 'confirm');
  });

  it('lets the customer pay again after a network error on the payment request', async () => {
    proxy.on('POST', '/payments', offline);
    const el = await confirm();
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal('No connection. Check your data and try again.');
    await expect(el).to.be.accessible();
    proxy.on('POST', '/payments', () => json(payment(), 202));
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'pending');
  });

  describe('a Pay whose answer never comes', () => {
    const deadline = ProxyClient.deadline;
    beforeEach(() => void (ProxyClient.deadline = 200));
    afterEach(() => void (ProxyClient.deadline = deadline));

    it('stops waiting at the deadline, asks the order what became of it, and follows that payment: no second request', async () => {
      proxy.on('POST', '/payments', hang);
      // Unreachable at first (offline: said while asking), then the order shows the payment the request made.
      proxy.on('GET', '/order', offline);
      const el = await confirm();
      part(el, 'confirm-button')!.click();
      await waitUntil(() => text(el, 'status').endsWith('Connection lost. This will update when it returns.'), 'the connection is said to be lost');
      expect(text(el, 'status')).to.equal('Sending the request… Connection lost. This will update when it returns.');
      proxy.on('GET', '/order', order({ payment: payment(), next: 'payment' }));
      await stateIs(el, 'pending');
      await waitUntil(() => proxy.streams.length > 0, 'the payment is watched');
      expect(proxy.calls('POST', '/payments')).to.have.length(1);
      expect(text(el, 'status')).to.equal('Approve GHS 12.50 on your phone.');
      await expect(el).to.be.accessible();
    });

    it('says "No connection" when the order shows nothing was sent, and Pay again is safe', async () => {
      proxy.on('POST', '/payments', hang);
      const el = await confirm();
      part(el, 'confirm-button')!.click();
      await stateIs(el, 'error');
      expect(text(el, 'error-message')).to.equal('No connection. Check your data and try again.');
      expect(part(el, 'confirm-button'), 'Pay is offered again').to.exist;
    });
  });

  it('stops at an error when the proxy refuses to show the status', async () => {
    proxy.on('GET', /^\/payments\/[^/]+\/events$/, () => problem(401, 'TOKEN_EXPIRED'));
    const el = await confirm();
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal('This form has expired. Reload the page.');
  });

  it('goes back to the number with "Use another number"', async () => {
    const el = await confirm();
    part(el, 'change-button')!.click();
    await stateIs(el, 'idle');
    expect(part(el, 'phone-input')).to.exist;
  });

  it('follows amount, currency, token and language changes mid-flow', async () => {
    const el = await confirm();
    el.currency = 'EUR';
    await el.updateComplete;
    expect(text(el, 'amount')).to.equal('EUR 12.50');
    el.lang = 'fr';
    await el.updateComplete;
    expect(text(el, 'account')).to.equal('Payer 12,50 EUR depuis le compte KWAME M. (MTN) ? Votre réseau peut ajouter des frais.');
    expect(text(el, 'confirm-button')).to.equal('Payer 12,50 EUR');
    await expect(el).to.be.accessible();
    el.token = fakeToken({ scope: 'payment', amount: 7, referenceNo: 'ORDER-124' });
    await stateIs(el, 'idle');
    expect(part(el, 'phone-input')).to.exist;
  });

  it('prefills a number the token locks, and takes a custom strings table', async () => {
    const el = await fixture<PayByMobile>(
      html`<pay-by-mobile
        token=${fakeToken({ amount: 3, referenceNo: 'R', msisdn: '233240000001' })}
        .strings=${{ next: 'Find my account' }}
      ></pay-by-mobile>`,
    );
    await stateIs(el, 'idle');
    expect(part<HTMLInputElement>(el, 'phone-input')!.value).to.equal('233240000001');
    expect(text(el, 'continue-button')).to.equal('Find my account');
  });

  it('can be used with the keyboard alone', async () => {
    const el = await mount();
    el.focus();
    expect(el.shadowRoot!.activeElement).to.equal(part(el, 'phone-input'));
    await sendKeys({ type: '0240000001' });
    await sendKeys({ press: 'Enter' });
    await stateIs(el, 'confirm');
    expect(el.shadowRoot!.activeElement, 'focus on the confirm button').to.equal(part(el, 'confirm-button'));
    await sendKeys({ press: 'Enter' });
    await stateIs(el, 'pending');
    await waitUntil(() => proxy.streams.length == 1);
    stream().status(payment({ status: 'FAILED', attemptsLeft: 1 }));
    await stateIs(el, 'failed');
    await tabTo(el, 'retry-button', (press) => sendKeys({ press }));
    await sendKeys({ press: 'Enter' });
    await stateIs(el, 'pending');
    expect(proxy.calls('POST', '/payments')).to.have.length(2);
  });

  it('is usable again when moved in the page during a request', async () => {
    proxy.on('POST', '/payments', hang);
    const el = await confirm();
    part(el, 'confirm-button')!.click();
    await stateIs(el, 'paying');
    el.remove();
    document.body.append(el);
    await stateIs(el, 'idle');
  });
});
