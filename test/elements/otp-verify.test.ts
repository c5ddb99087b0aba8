import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/elements/otp-verify/index.js';
import type { OtpVerify } from '../../src/elements/otp-verify/index.js';
import '../../src/elements/translations/fr.js';
import { FakeProxy, fakeToken, hang, json, offline, otpSent, problem } from './fake-proxy.js';
import { deferred, part, sleep, stateIs, tabTo, text, typeInto } from './helpers.js';

const TOKEN = fakeToken({ scope: 'otp', purpose: 'sign-in' });
const PROOF = fakeToken({ scope: 'otp-proof', sub: '233240000001' });

describe('<otp-verify>', () => {
  let proxy: FakeProxy;
  beforeEach(() => {
    proxy = new FakeProxy();
    proxy.on('POST', '/otp/send', otpSent());
    proxy.on('POST', '/otp/verify', { verified: true, proof: PROOF });
    proxy.on('GET', /^\/otp\/.+\/delivery$/, { deliveryStatus: 'ACCEPTED' });
  });
  afterEach(() => proxy.restore());

  const mount = (extra = html``) =>
    fixture<OtpVerify>(html`<otp-verify token=${TOKEN} .deliveryPoll=${20}>${extra}</otp-verify>`);
  const input = (el: OtpVerify) => el.shadowRoot!.querySelector('input')!;
  /** Number typed, code sent: the element waits for the code. */
  async function sent(el?: OtpVerify) {
    el ??= await mount();
    await el.updateComplete;
    typeInto(input(el), '024 000 0001');
    part(el, 'send-button')!.click();
    await stateIs(el, 'sent');
    return el;
  }

  it('starts idle: a labelled phone input and a send button, accessible', async () => {
    const el = await mount();
    expect(el.state).to.equal('idle');
    expect(el.matches(':state(idle)')).to.be.true;
    const phone = part<HTMLInputElement>(el, 'phone-input')!;
    expect(phone.type).to.equal('tel');
    expect(phone.autocomplete).to.equal('tel');
    expect(phone.labels![0]!.textContent).to.equal('Phone number');
    expect(text(el, 'send-button')).to.equal('Send code');
    expect(part(el, 'status')!.getAttribute('aria-live')).to.equal('polite');
    expect(part(el, 'error-message')!.getAttribute('aria-live')).to.equal('assertive');
    await expect(el).to.be.accessible();
  });

  it('sends the number, shows the code step and fires otp-sent with the masked number', async () => {
    const gate = deferred<Response>();
    proxy.on('POST', '/otp/send', () => gate.promise);
    const el = await mount();
    typeInto(input(el), '024 000 0001');
    part(el, 'send-button')!.click();
    await stateIs(el, 'sending');
    expect(el.matches(':state(sending)')).to.be.true;
    expect(part<HTMLButtonElement>(el, 'send-button')!.disabled).to.be.true;
    expect(text(el, 'status')).to.equal('Sending the code…');
    await expect(el).to.be.accessible();

    const event = oneEvent(el, 'otp-sent');
    const body = otpSent();
    gate.resolve(json(body));
    const { detail } = await event;
    expect(detail).to.deep.equal({ otpId: 'otp_1', recipient: '233 24 *** **01', expiresAt: body.expiresAt });
    await stateIs(el, 'sent');
    expect(el.matches(':state(sent)')).to.be.true;
    expect(el.matches(':state(sending)')).to.be.false;
    expect(proxy.calls('POST', '/otp/send')[0]!.body).to.deep.equal({ recipient: '024 000 0001' });
    expect(text(el, 'status')).to.contain('We sent a code by SMS to 233 24 *** **01.');
    const code = part<HTMLInputElement>(el, 'code-input')!;
    expect(code.autocomplete).to.equal('one-time-code');
    expect(code.inputMode).to.equal('numeric');
    expect(code.maxLength).to.equal(6);
    expect(code.labels![0]!.textContent).to.equal('Code from the SMS');
    await expect(el).to.be.accessible();
  });

  it('makes one request for a fast double click', async () => {
    proxy.on('POST', '/otp/send', hang);
    const el = await mount();
    typeInto(input(el), '0240000001');
    part(el, 'send-button')!.click();
    part(el, 'send-button')!.click();
    await sleep(20);
    expect(proxy.calls('POST', '/otp/send')).to.have.length(1);
  });

  it('takes text codes in a text input of the given length', async () => {
    proxy.on('POST', '/otp/send', otpSent({ pinType: 'ALPHANUMERIC', pinLength: 4 }));
    const el = await sent();
    const code = part<HTMLInputElement>(el, 'code-input')!;
    expect(code.inputMode).to.equal('text');
    expect(code.maxLength).to.equal(4);
    typeInto(code, 'a1-B2');
    await stateIs(el, 'verified');
    expect(proxy.calls('POST', '/otp/verify')[0]!.body).to.deep.equal({ recipient: '024 000 0001', code: 'a1B2' });
  });

  it('verifies the code once complete and fires otp-verified with the proof', async () => {
    const gate = deferred<Response>();
    proxy.on('POST', '/otp/verify', () => gate.promise);
    const el = await sent();
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '12345');
    await sleep(10);
    expect(proxy.calls('POST', '/otp/verify'), 'not before the code is complete').to.have.length(0);
    part(el, 'code-input')!.focus();
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '123456');
    await stateIs(el, 'verifying');
    expect(text(el, 'status')).to.equal('Checking the code…');
    part(el, 'verify-button')!.click(); // busy: ignored
    const event = oneEvent(el, 'otp-verified');
    gate.resolve(json({ verified: true, proof: PROOF }));
    expect((await event).detail).to.deep.equal({ proof: PROOF, recipient: '233 24 *** **01' });
    await stateIs(el, 'verified');
    expect(el.matches(':state(verified)')).to.be.true;
    expect(proxy.calls('POST', '/otp/verify')).to.have.length(1);
    expect(proxy.calls('POST', '/otp/verify')[0]!.body).to.deep.equal({ recipient: '024 000 0001', code: '123456' });
    expect(text(el, 'status')).to.equal('Number 233 24 *** **01 verified.');
    expect(part(el, 'status')!.textContent, 'the number never wraps').to.contain('233\xa024\xa0***\xa0**01');
    expect(el.shadowRoot!.activeElement === part(el, 'status'), 'the focus goes to the sentence, not the page').to.be.true;
    expect(part(el, 'code-input')).to.be.null;
    await expect(el).to.be.accessible();
  });

  it('takes the whole code pasted, even inside the SMS text', async () => {
    const el = await sent();
    const data = new DataTransfer();
    data.setData('text/plain', 'Your code is 482913. It expires in 5 minutes.');
    part(el, 'code-input')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    await stateIs(el, 'verified');
    expect(proxy.calls('POST', '/otp/verify')[0]!.body.code).to.equal('482913');
  });

  it('shows a wrong code with the attempts left, in its own words, and lets the customer try again', async () => {
    proxy.on('POST', '/otp/verify', () => problem(400, 'OTP_INVALID', { attemptsLeft: 2 }));
    const el = await sent();
    const event = oneEvent(el, 'otp-failed');
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '111111');
    expect((await event).detail).to.deep.equal({ code: 'OTP_INVALID', message: 'That code is not right. 2 tries left.' });
    await stateIs(el, 'wrong-code');
    expect(el.matches(':state(wrong-code)')).to.be.true;
    expect(text(el, 'error-message')).to.equal('That code is not right. 2 tries left.');
    expect(el.shadowRoot!.textContent).not.to.contain('server text');
    expect(part(el, 'code-input')!.getAttribute('aria-invalid')).to.equal('true');
    await expect(el).to.be.accessible();
    proxy.on('POST', '/otp/verify', { verified: true, proof: PROOF });
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '222222');
    await stateIs(el, 'verified');
    expect(text(el, 'error-message')).to.equal('');
  });

  for (const [code, state, sentence] of [
    ['OTP_EXPIRED', 'expired', 'This code has expired. Ask for a new one.'],
    ['OTP_LOCKED', 'locked', 'Too many wrong codes for this number. Try again in 10 min.'],
  ] as const) {
    it(`moves to ${state} on ${code}, with verifying disabled`, async () => {
      proxy.on('POST', '/otp/verify', () => problem(400, code, { retryAfter: 600 }));
      const el = await sent();
      const event = oneEvent(el, 'otp-failed');
      typeInto(part<HTMLInputElement>(el, 'code-input')!, '111111');
      expect((await event).detail).to.deep.equal({ code, message: sentence });
      await stateIs(el, state);
      expect(el.matches(`:state(${state})`)).to.be.true;
      expect(text(el, 'error-message')).to.equal(sentence);
      expect(part<HTMLButtonElement>(el, 'verify-button')!.disabled).to.be.true;
      await expect(el).to.be.accessible();
    });
  }

  it('counts a rate limit down from retryAfter, then lets the customer go on', async () => {
    proxy.on('POST', '/otp/send', () => problem(429, 'RATE_LIMITED', { retryAfter: 1 }));
    const el = await mount();
    typeInto(input(el), '0240000001');
    const event = oneEvent(el, 'otp-failed');
    part(el, 'send-button')!.click();
    expect((await event).detail.code).to.equal('RATE_LIMITED');
    await stateIs(el, 'rate-limited');
    expect(text(el, 'error-message')).to.equal('Too many attempts. Try again in 1 s.');
    expect(part<HTMLButtonElement>(el, 'send-button')!.disabled).to.be.true;
    await expect(el).to.be.accessible();
    await stateIs(el, 'idle');
    expect(part<HTMLButtonElement>(el, 'send-button')!.disabled).to.be.false;
    expect(text(el, 'error-message')).to.equal('');
  });

  it('offers a retry after a network error, which repeats the call', async () => {
    proxy.on('POST', '/otp/send', offline);
    const el = await mount();
    typeInto(input(el), '0240000001');
    part(el, 'send-button')!.click();
    await stateIs(el, 'network-error');
    expect(text(el, 'error-message')).to.equal('No connection. Check your data and try again.');
    await expect(el).to.be.accessible();
    proxy.on('POST', '/otp/send', otpSent());
    part(el, 'retry-button')!.click();
    await stateIs(el, 'sent');
    expect(proxy.calls('POST', '/otp/send').map((r) => r.body)).to.deep.equal([
      { recipient: '0240000001' },
      { recipient: '0240000001' },
    ]);
  });

  it('shows other refusals as a sentence of its own and keeps the number editable', async () => {
    proxy.on('POST', '/otp/send', () => problem(400, 'INVALID_PHONE_NUMBER'));
    const el = await mount();
    typeInto(input(el), '12');
    part(el, 'send-button')!.click();
    await stateIs(el, 'error');
    expect(el.matches(':state(error)')).to.be.true;
    expect(text(el, 'error-message')).to.equal('Enter a Ghanaian mobile number, like 024 123 4567.');
    expect(part(el, 'phone-input')!.getAttribute('aria-invalid')).to.equal('true');
    await expect(el).to.be.accessible();
    proxy.on('POST', '/otp/send', () => problem(500, 'INTERNAL'));
    part(el, 'send-button')!.click();
    await waitUntil(() => proxy.calls('POST', '/otp/send').length == 2);
    await stateIs(el, 'error');
    expect(text(el, 'error-message')).to.equal('Something went wrong. Try again later.');
  });

  it('tells whether the SMS was delivered', async () => {
    let reads = 0;
    proxy.on('GET', '/otp/otp_1/delivery', () => json({ deliveryStatus: ++reads < 2 ? 'ACCEPTED' : 'DELIVERED' }));
    const el = await sent();
    await waitUntil(() => text(el, 'status').includes('Code delivered.'));
    expect(reads).to.equal(2);

    proxy.on('POST', '/otp/send', otpSent({ otpId: 'otp_2' }));
    proxy.on('GET', '/otp/otp_2/delivery', { deliveryStatus: 'UNDELIVERED' });
    part(el, 'change-button')!.click();
    await sent(el);
    await waitUntil(() => text(el, 'status').includes('Not delivered. Check the number.'));
  });

  it('keeps resend disabled with a countdown until resendAt, then sends a new code', async () => {
    proxy.on('POST', '/otp/send', otpSent({ resendAt: new Date(Date.now() + 1500).toISOString() }));
    const el = await sent();
    const resend = part<HTMLButtonElement>(el, 'resend-button')!;
    expect(resend.disabled).to.be.true;
    expect(text(el, 'resend-button')).to.match(/^New code in 0:0[12]$/);
    await waitUntil(() => !resend.disabled, 'resend enabled', { timeout: 3000 });
    expect(text(el, 'resend-button')).to.equal('Send a new code');
    const event = oneEvent(el, 'otp-sent');
    resend.click();
    await event;
    expect(proxy.calls('POST', '/otp/send')).to.have.length(2);
    expect(proxy.calls('POST', '/otp/send')[1]!.body).to.deep.equal({ recipient: '024 000 0001' });
  });

  it("counts the resend cooldown on the proxy's clock, not the phone's", async () => {
    // This phone is 10 minutes slow: resendAt is 60 s after the proxy's now, 10 min 60 s after the phone's.
    const serverNow = Date.now() + 600_000;
    proxy.on('POST', '/otp/send', () => {
      const body = otpSent({ resendAt: new Date(serverNow + 60_000).toISOString() });
      return new Response(JSON.stringify(body), { headers: { date: new Date(serverNow).toUTCString() } });
    });
    const el = await sent();
    // (The Date header has whole seconds.)
    expect(text(el, 'resend-button')).to.match(/^New code in (1:0[01]|0:59)$/);
  });

  it('says a number locked for a while in minutes, and blocks resend and "Use another number" alike', async () => {
    proxy.on('POST', '/otp/verify', () => problem(423, 'OTP_LOCKED', { reason: 'number', retryAfter: 2950 }));
    const el = await sent();
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '111111');
    await stateIs(el, 'locked');
    expect(text(el, 'error-message')).to.equal('Too many wrong codes for this number. Try again in 50 min.');
    expect(part<HTMLButtonElement>(el, 'verify-button')!.disabled).to.be.true;
    expect(part<HTMLButtonElement>(el, 'resend-button')!.disabled).to.be.true;
    // One sentence, one time: no "New code in 0:59" beside it, which would promise the opposite.
    expect(text(el, 'resend-button')).to.equal('Send a new code');
    await expect(el).to.be.accessible();
    part(el, 'change-button')!.click();
    await stateIs(el, 'idle');
    typeInto(input(el), '+233 24 000 0001');
    const event = oneEvent(el, 'otp-failed');
    part(el, 'send-button')!.click();
    expect((await event).detail.message).to.equal('Too many wrong codes for this number. Try again in 50 min.');
    expect(el.state).to.equal('locked');
    expect(proxy.calls('POST', '/otp/send'), 'no code that could not be checked').to.have.length(1);
    typeInto(input(el), '024 000 0002');
    part(el, 'send-button')!.click();
    await stateIs(el, 'sent');
    expect(proxy.calls('POST', '/otp/send'), 'another number is fine').to.have.length(2);
  });

  it('after the last wrong code, or a code locked alone, offers a new code at once', async () => {
    proxy.on('POST', '/otp/send', otpSent({ resendAt: new Date().toISOString() }));
    proxy.on('POST', '/otp/verify', () => problem(400, 'OTP_INVALID', { attemptsLeft: 0 }));
    const el = await sent();
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '111111');
    await stateIs(el, 'locked');
    expect(text(el, 'error-message')).to.equal('That code is not right. No tries left. Send a new code.');
    expect(part<HTMLButtonElement>(el, 'verify-button')!.disabled, 'no sixth try').to.be.true;
    expect(part<HTMLButtonElement>(el, 'resend-button')!.disabled).to.be.false;

    proxy.on('POST', '/otp/verify', () => problem(423, 'OTP_LOCKED', { reason: 'code' }));
    part(el, 'resend-button')!.click();
    await stateIs(el, 'sent');
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '222222');
    await stateIs(el, 'locked');
    expect(text(el, 'error-message')).to.equal('Too many wrong codes. Send a new code.');
    expect(part<HTMLButtonElement>(el, 'resend-button')!.disabled, 'the way that works').to.be.false;
  });

  it('says in the sentence when a new code can be sent after the last wrong code, and nowhere else', async () => {
    proxy.on('POST', '/otp/send', otpSent({ resendAt: new Date(Date.now() + 2_000).toISOString() }));
    proxy.on('POST', '/otp/verify', () => problem(400, 'OTP_INVALID', { attemptsLeft: 0 }));
    const el = await sent();
    const failed = oneEvent(el, 'otp-failed');
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '111111');
    await stateIs(el, 'locked');
    expect(text(el, 'error-message')).to.match(/^That code is not right\. No tries left\. Send a new code in 0:0[12]\.$/);
    expect((await failed).detail.message).to.match(/Send a new code in 0:0[12]\.$/);
    const resend = part<HTMLButtonElement>(el, 'resend-button')!;
    expect(resend.disabled).to.be.true;
    expect(text(el, 'resend-button'), 'the time is in the sentence').to.equal('Send a new code');
    await expect(el).to.be.accessible();
    await waitUntil(() => !resend.disabled, 'resend open', { timeout: 3000 });
    expect(text(el, 'error-message')).to.equal('That code is not right. No tries left. Send a new code.');
    el.lang = 'fr';
    await el.updateComplete;
    expect(text(el, 'error-message')).to.equal("Ce code n'est pas le bon. Plus aucun essai. Demandez un nouveau code.");
  });

  it('confirms a new code was sent after a resend', async () => {
    proxy.on('POST', '/otp/send', otpSent({ resendAt: new Date().toISOString() }));
    const el = await sent();
    expect(text(el, 'status')).to.match(/^We sent a code by SMS to 233 24 \*\*\* \*\*01\./);
    part(el, 'resend-button')!.click();
    await waitUntil(() => proxy.calls('POST', '/otp/send').length == 2);
    await stateIs(el, 'sent');
    expect(text(el, 'status')).to.match(/^New code sent to 233 24 \*\*\* \*\*01\./);
  });

  it('starts the resend countdown at 1:00 for 60 s, whatever the Date header rounds off', async () => {
    // The Date header has whole seconds: up to 999 ms behind the proxy's real clock.
    await waitUntil(() => Date.now() % 1000 > 600, 'late in a second', { interval: 5 });
    const now = Date.now();
    proxy.on('POST', '/otp/send', () => {
      const body = otpSent({ resendAt: new Date(now + 60_000).toISOString() });
      return new Response(JSON.stringify(body), { headers: { date: new Date(now).toUTCString() } });
    });
    const el = await sent();
    expect(text(el, 'resend-button')).to.equal('New code in 1:00');
  });

  it('caps the length of the number and shows a spinner while busy', async () => {
    proxy.on('POST', '/otp/send', hang);
    const el = await mount();
    expect(part<HTMLInputElement>(el, 'phone-input')!.maxLength).to.equal(20);
    typeInto(input(el), '0240000001');
    part(el, 'send-button')!.click();
    await stateIs(el, 'sending');
    expect(part(el, 'status')!.classList.contains('spin')).to.be.true;
  });

  it('keeps its two links on one line and the masked number whole on a phone-sized card', async () => {
    // A 390 px wide phone, less the shop's card padding, in a wide sans-serif: about 316 px.
    const el = await sent(await fixture<OtpVerify>(html`<otp-verify token=${TOKEN} style="inline-size:316px;font:16px DejaVu Sans,sans-serif"></otp-verify>`));
    const resend = part(el, 'resend-button')!.getBoundingClientRect();
    const change = part(el, 'change-button')!.getBoundingClientRect();
    expect(change.top, 'the links side by side').to.equal(resend.top);
    const status = part(el, 'status')!;
    const range = document.createRange();
    // Text nodes only: Lit's marker comments (<!--?lit$<random digits>$-->) are children too, and now and then hold '233'.
    const node = [...status.childNodes].find((n) => n.nodeType == Node.TEXT_NODE && n.textContent!.includes('233'))!;
    const at = node.textContent!.indexOf('233');
    range.setStart(node, at);
    range.setEnd(node, at + '233 24 *** **01'.length);
    expect(range.getClientRects().length, 'the number on one line').to.equal(1);
    await expect(el).to.be.accessible();
  });

  it('goes back to the number with "Use another number"', async () => {
    const el = await sent();
    part(el, 'change-button')!.click();
    await stateIs(el, 'idle');
    expect(part<HTMLInputElement>(el, 'phone-input')!.value).to.equal('024 000 0001');
  });

  it('fills and checks the code from the SMS through WebOTP, and aborts it when done', async () => {
    const signals: AbortSignal[] = [];
    const credentials = navigator.credentials;
    (window as any).OTPCredential = class {};
    Object.defineProperty(navigator, 'credentials', {
      configurable: true,
      value: {
        get: (options: { otp: unknown; signal: AbortSignal }) => {
          signals.push(options.signal);
          expect(options.otp).to.deep.equal({ transport: ['sms'] });
          if (signals.length == 1) return Promise.resolve({ code: '654321' });
          return new Promise((_, reject) => options.signal.addEventListener('abort', () => reject(new DOMException('', 'AbortError'))));
        },
      },
    });
    try {
      const el = await mount();
      typeInto(input(el), '024 000 0001');
      part(el, 'send-button')!.click();
      await stateIs(el, 'verified');
      expect(proxy.calls('POST', '/otp/verify')[0]!.body.code).to.equal('654321');
      expect(signals[0]!.aborted).to.be.true;

      const again = await sent(await mount());
      expect(signals[1]!.aborted).to.be.false;
      // A page gets one WebOTP request at a time (Chromium refuses more, and can crash aborting several).
      const third = await sent(await mount());
      expect(signals, 'no second request while one is pending').to.have.length(2);
      third.remove();
      again.remove();
      expect(signals[1]!.aborted, 'aborted on disconnect').to.be.true;
    } finally {
      delete (window as any).OTPCredential;
      Object.defineProperty(navigator, 'credentials', { configurable: true, value: credentials });
    }
  });

  it('has the proof in its form when otp-verified fires, so a page can submit the form on that event', async () => {
    const form = await fixture<HTMLFormElement>(html`<form><otp-verify name="proof" token=${TOKEN}></otp-verify></form>`);
    const el = form.querySelector('otp-verify')!;
    await sent(el);
    const submitted = new Promise<FormDataEntryValue | null>((resolve) =>
      el.addEventListener('otp-verified', () => resolve(new FormData(form).get('proof'))),
    );
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '123456');
    expect(await submitted).to.equal(PROOF);
  });

  it('gives the proof to its form, which is invalid until the number is verified', async () => {
    const form = await fixture<HTMLFormElement>(
      html`<form><otp-verify name="phone_proof" required token=${TOKEN}></otp-verify></form>`,
    );
    const el = form.querySelector('otp-verify')!;
    await el.updateComplete;
    expect(el.form).to.equal(form);
    expect(form.checkValidity()).to.be.false;
    expect(el.validity.valueMissing).to.be.true;
    expect(el.checkValidity()).to.be.false;
    expect(new FormData(form).has('phone_proof')).to.be.false;
    await sent(el);
    typeInto(part<HTMLInputElement>(el, 'code-input')!, '123456');
    await stateIs(el, 'verified');
    expect(form.checkValidity()).to.be.true;
    expect(new FormData(form).get('phone_proof')).to.equal(PROOF);

    form.reset();
    await stateIs(el, 'idle');
    expect(form.checkValidity()).to.be.false;
    expect(new FormData(form).has('phone_proof')).to.be.false;
  });

  it('is not required unless asked, and follows a disabled fieldset', async () => {
    const form = await fixture<HTMLFormElement>(
      html`<form><fieldset><otp-verify name="p" token=${TOKEN}></otp-verify></fieldset></form>`,
    );
    const el = form.querySelector('otp-verify')!;
    expect(form.checkValidity()).to.be.true;
    form.querySelector('fieldset')!.disabled = true;
    await el.updateComplete;
    expect(part<HTMLButtonElement>(el, 'send-button')!.disabled).to.be.true;
    expect(part<HTMLInputElement>(el, 'phone-input')!.readOnly).to.be.true;
  });

  it('restores a live proof from the browser, not a dead one', async () => {
    const el = await mount();
    el.formStateRestoreCallback(fakeToken({ exp: Date.now() / 1000 - 10 }));
    expect(el.state).to.equal('idle');
    el.formStateRestoreCallback(PROOF);
    await stateIs(el, 'verified');
  });

  it('starts over when its token changes mid-flow, and prefills a number the token locks', async () => {
    const el = await sent();
    el.token = fakeToken({ scope: 'otp', purpose: 'sign-in', recipient: '233240000009' });
    await stateIs(el, 'idle');
    expect(part<HTMLInputElement>(el, 'phone-input')!.value).to.equal('024 000 0001');
    const fresh = await fixture<OtpVerify>(html`<otp-verify token=${el.token}></otp-verify>`);
    expect(part<HTMLInputElement>(fresh, 'phone-input')!.value).to.equal('233240000009');
    const prefilled = await fixture<OtpVerify>(html`<otp-verify value="0551234567"></otp-verify>`);
    expect(part<HTMLInputElement>(prefilled, 'phone-input')!.value).to.equal('0551234567');
  });

  it('speaks French with lang="fr", also when switched mid-flow', async () => {
    const el = await fixture<OtpVerify>(html`<otp-verify lang="fr" token=${TOKEN}></otp-verify>`);
    expect(text(el, 'send-button')).to.equal('Envoyer le code');
    expect(part<HTMLInputElement>(el, 'phone-input')!.labels![0]!.textContent).to.equal('Numéro de téléphone');
    el.lang = 'en';
    await el.updateComplete;
    await sent(el);
    el.lang = 'fr-CI';
    await el.updateComplete;
    expect(text(el, 'status')).to.contain('Nous avons envoyé un code par SMS au 233 24 *** **01.');
    await expect(el).to.be.accessible();
  });

  it('follows the page language and takes a custom strings table', async () => {
    document.documentElement.lang = 'fr';
    try {
      const el = await fixture<OtpVerify>(html`<otp-verify token=${TOKEN}></otp-verify>`);
      expect(text(el, 'send-button')).to.equal('Envoyer le code');
      el.strings = { send: 'Text me a code' };
      await el.updateComplete;
      expect(text(el, 'send-button')).to.equal('Text me a code');
      expect(part<HTMLInputElement>(el, 'phone-input')!.labels![0]!.textContent).to.equal('Numéro de téléphone');
    } finally {
      document.documentElement.lang = 'en';
    }
  });

  it('can be used with the keyboard alone', async () => {
    const el = await mount();
    el.focus();
    expect(el.shadowRoot!.activeElement).to.equal(part(el, 'phone-input'));
    await sendKeys({ type: '0240000001' });
    await sendKeys({ press: 'Enter' });
    await stateIs(el, 'sent');
    expect(el.shadowRoot!.activeElement, 'focus moves to the code').to.equal(part(el, 'code-input'));
    await sendKeys({ type: '123456' });
    await stateIs(el, 'verified');
    expect(proxy.calls('POST', '/otp/send')[0]!.body).to.deep.equal({ recipient: '0240000001' });

    const other = await mount();
    proxy.on('POST', '/otp/send', otpSent({ resendAt: new Date().toISOString() }));
    other.focus();
    await sendKeys({ type: '0240000001' });
    await tabTo(other, 'send-button', (press) => sendKeys({ press }));
    await sendKeys({ press: 'Enter' });
    await stateIs(other, 'sent');
    await tabTo(other, 'change-button', (press) => sendKeys({ press }));
    await sendKeys({ press: 'Enter' });
    await stateIs(other, 'idle');
    expect(other.shadowRoot!.activeElement).to.equal(part(other, 'phone-input'));
  });
});
