// Where the keyboard's focus goes when the phone, not the customer, ends a wait, and how the ways on sit after
// the sentence that says why (issue 20, items 6 and 8).
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/elements/pay-by-mobile/index.js';
import type { PayByMobile } from '../../src/elements/pay-by-mobile/index.js';
import { type FakeProxy, fakeToken, json, payment } from './fake-proxy.js';
import { paymentProxy } from './payment-proxy.js';
import { part, stateIs } from './helpers.js';

const TOKEN = fakeToken({ scope: 'payment', amount: 12.5, referenceNo: 'ORDER-123' });

/** The deep focus: the element's own focused part, or the page's. */
const focused = (el: PayByMobile) => (document.activeElement == el ? el.shadowRoot!.activeElement : document.activeElement);
const partName = (node: Element | null) => node?.getAttribute('part') ?? node?.localName ?? 'nothing';

describe('<pay-by-mobile> focus and the ways on', () => {
  const fake = paymentProxy();
  let proxy: FakeProxy;
  beforeEach(() => void (proxy = fake.proxy));

  /** Pays by keyboard alone, from the focus on the element: number, Enter, Enter; resolves once waiting. */
  async function waitingByKeyboard(attrs = {}) {
    const el = await fixture<PayByMobile>(html`<pay-by-mobile token=${TOKEN} timeout=${(attrs as { timeout?: number }).timeout ?? 120}></pay-by-mobile>`);
    await stateIs(el, 'idle');
    el.focus();
    await sendKeys({ type: '0240000001' });
    await sendKeys({ press: 'Enter' });
    await stateIs(el, 'confirm');
    await sendKeys({ press: 'Enter' });
    await stateIs(el, 'pending');
    await waitUntil(() => proxy.streams.length == 1);
    expect(partName(focused(el)), 'waiting: on "Check again"').to.equal('check-button');
    return el;
  }
  const stream = () => fake.stream();

  for (const [outcome, update, state, next] of [
    ['declined on the phone', { status: 'CANCELLED' }, 'cancelled', 'retry-button'],
    ['failed', { status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' }, 'failed', 'retry-button'],
    ['failed with no attempt left', { status: 'FAILED', attemptsLeft: 0 }, 'failed', 'error-message'],
    ['completed', { status: 'COMPLETED' }, 'completed', 'status'],
    ['left by the proxy (timed out)', { status: 'TIMED_OUT' }, 'timed-out', 'retry-button'],
  ] as const) {
    it(`moves the focus to what comes next when the payment is ${outcome}, never to the page's body`, async () => {
      const el = await waitingByKeyboard();
      stream().status(payment(update));
      await stateIs(el, state);
      await waitUntil(() => partName(focused(el)) == next, `focus on ${next} (on ${partName(focused(el))})`);
    });
  }

  it('takes a declined payment to a new try by keyboard alone', async () => {
    const el = await waitingByKeyboard();
    stream().status(payment({ status: 'CANCELLED' }));
    await stateIs(el, 'cancelled');
    await waitUntil(() => partName(focused(el)) == 'retry-button');
    proxy.on('POST', '/payments', () => json(payment({ reference: 'ORDER-123-2', attempt: 2, attemptsLeft: 1 }), 202));
    await sendKeys({ press: 'Enter' });
    await stateIs(el, 'pending');
    expect(proxy.calls('POST', '/payments')).to.have.length(2);
    await waitUntil(() => partName(focused(el)) == 'check-button');
  });

  it('moves the focus to "Check again" when its own countdown ends', async () => {
    const el = await waitingByKeyboard({ timeout: 1 });
    el.lateInterval = 100_000;
    await stateIs(el, 'timed-out');
    await waitUntil(() => partName(focused(el)) == 'retry-button');
  });

  it('leaves the focus where it is when the customer is elsewhere in the page', async () => {
    const el = await waitingByKeyboard();
    const outside = document.createElement('button');
    document.body.append(outside);
    try {
      outside.focus();
      stream().status(payment({ status: 'CANCELLED' }));
      await stateIs(el, 'cancelled');
      expect(document.activeElement === outside).to.be.true;
    } finally {
      outside.remove();
    }
  });

  for (const [state, update, sentence] of [
    ['failed', { status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' }, 'error-message'],
    ['cancelled', { status: 'CANCELLED' }, 'status'],
    ['timed-out', { status: 'TIMED_OUT' }, 'status'],
  ] as const) {
    it(`puts the ways on after the sentence that says why, with room around them (${state})`, async () => {
      const el = await waitingByKeyboard();
      stream().status(payment(update));
      await stateIs(el, state);
      const why = part(el, sentence)!.getBoundingClientRect();
      const amount = part(el, 'amount')!.getBoundingClientRect();
      const retry = part(el, 'retry-button')!.getBoundingClientRect();
      expect(why.height, 'the sentence is shown').to.be.greaterThan(0);
      expect(retry.top - why.bottom, 'below the sentence, not tight under it').to.be.at.least(12);
      expect(why.top, 'the sentence right under the amount').to.be.at.least(amount.bottom);
      expect(el.shadowRoot!.activeElement === part(el, 'retry-button')).to.be.true;
    });
  }
});
