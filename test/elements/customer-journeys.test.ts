// The three journeys against the real proxy and sandbox, which web-test-runner.config.mjs starts and serves on
// the page's own origin (`/merchant-elements`), with `/__test` standing in for the merchant's server (tokens)
// and the customer's phone (the SMS, the approval prompt, the hosted checkout page).
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { CheckoutButton, OtpVerify, PayByMobile } from '../../src/elements/index.js';
import { part, stateIs, text, typeInto } from './helpers.js';

async function token(kind: 'otp' | 'payment' | 'checkout'): Promise<string> {
  const res = await fetch(`/__test/token?kind=${kind}`);
  if (!res.ok) throw new Error(`no ${kind} token (${res.status} ${(await res.text()).slice(0, 200)}): is the journey back end running (npm run test:elements)?`);
  return (await res.json()).token;
}

const claims = (jwt: string) => JSON.parse(atob(jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));

describe('customer journeys against the real proxy and sandbox', () => {
  it('verifies a phone number with the code from the SMS, and the form gets the proof', async () => {
    const form = await fixture<HTMLFormElement>(
      html`<form><otp-verify name="proof" required token=${await token('otp')}></otp-verify></form>`,
    );
    const el = form.querySelector<OtpVerify>('otp-verify')!;
    await el.updateComplete;
    typeInto(part<HTMLInputElement>(el, 'phone-input')!, '024 000 0001');
    const sent = oneEvent(el, 'otp-sent');
    part(el, 'send-button')!.click();
    expect((await sent).detail.recipient).to.match(/\*/);
    await stateIs(el, 'sent');

    let code: string | null = null;
    await waitUntil(async () => {
      code = (await (await fetch('/__test/sms-code?to=233240000001')).json()).code;
      return code;
    }, 'the SMS reached the sandbox outbox');
    await waitUntil(() => text(el, 'status').includes('Code delivered.'), 'delivery receipt read', { timeout: 8000 });

    const verified = oneEvent(el, 'otp-verified');
    typeInto(part<HTMLInputElement>(el, 'code-input')!, code!);
    const { proof } = (await verified).detail;
    expect(claims(proof)).to.include({ scope: 'otp-proof', sub: '233240000001', purpose: 'sign-in' });
    expect(new FormData(form).get('proof')).to.equal(proof);
    expect(form.checkValidity()).to.be.true;
  });

  it('takes a mobile-money payment approved on the phone', async () => {
    const el = await fixture<PayByMobile>(html`<pay-by-mobile token=${await token('payment')}></pay-by-mobile>`);
    await waitUntil(() => text(el, 'amount') == 'GHS 12.50', 'the amount');
    // A new order: the proxy says a try may start.
    await stateIs(el, 'idle');
    typeInto(part<HTMLInputElement>(el, 'phone-input')!, '0260000004');
    part(el, 'continue-button')!.click();
    await stateIs(el, 'confirm');
    // This proxy's configuration has no charge estimate: before Pay, the network's charge is announced.
    expect(text(el, 'account')).to.match(/^Pay GHS 12\.50 from ESI O\S* on \S+\? Your network may add a charge\.$/);

    const pending = oneEvent(el, 'payment-pending');
    part(el, 'confirm-button')!.click();
    const { reference } = (await pending).detail;
    await stateIs(el, 'pending');

    const completed = oneEvent(el, 'payment-completed');
    await waitUntil(async () => (await fetch('/__test/approve?msisdn=233260000004', { method: 'POST' })).ok, 'approved on the phone');
    expect((await completed).detail).to.deep.equal({ reference, orderReference: reference.replace(/-\d+$/, ''), amount: 12.5, currency: 'GHS' });
    await stateIs(el, 'completed');
  });

  it('opens the hosted checkout and follows it to completion', async () => {
    const el = await fixture<CheckoutButton>(html`<checkout-button token=${await token('checkout')}></checkout-button>`);
    const visited: string[] = [];
    el.navigate = (url) => visited.push(url);
    const opened = oneEvent(el, 'checkout-opened');
    part(el, 'button')!.click();
    const { checkoutId, checkoutUrl, mode } = (await opened).detail;
    expect(mode).to.equal('redirect');
    expect(visited).to.deep.equal([checkoutUrl]);
    await stateIs(el, 'open');

    const completed = oneEvent(el, 'checkout-completed');
    const paid = await fetch(`/__test/checkout-pay?url=${encodeURIComponent(checkoutUrl)}&msisdn=233240000001`, { method: 'POST' });
    expect(paid.ok, 'paid on the hosted page').to.be.true;
    expect((await completed).detail).to.deep.equal({ checkoutId });
    await stateIs(el, 'completed');
  });
});
