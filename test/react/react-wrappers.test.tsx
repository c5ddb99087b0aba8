import { expect, waitUntil } from '@open-wc/testing';
import { createElement, createRef, type ComponentProps, type ExoticComponent, type ReactElement } from 'react';
import { flushSync } from 'react-dom';
import { createRoot, type Root } from 'react-dom/client';
import { MerchantEvent } from '../../src/elements/shared/events.js';
// What the README tells a React page to import for French.
import '../../src/elements/translations/fr.js';
import {
  CheckoutButton,
  OtpVerify,
  PayByMobile,
  type CheckoutButtonElement,
  type OtpVerifyElement,
  type PayByMobileElement,
} from '../../src/react/index.js';

/** Renders `element` into a fresh container, synchronously. */
function render(root: Root, element: ReactElement) {
  flushSync(() => root.render(element));
}

describe('React wrappers', () => {
  let container: HTMLElement;
  let root: Root;
  beforeEach(() => {
    container = document.body.appendChild(document.createElement('div'));
    root = createRoot(container);
  });
  afterEach(() => {
    root.unmount();
    container.remove();
  });

  it('<OtpVerify> renders the registered element and sets its properties, objects included', async () => {
    const ref = createRef<OtpVerifyElement>();
    const strings = { send: 'Text me a code' };
    render(root, <OtpVerify ref={ref} token="t1" proxy="/pay/api" name="proof" required deliveryPoll={50} strings={strings} />);
    const el = ref.current!;
    expect(el).to.equal(container.querySelector('otp-verify'));
    expect(el).to.be.instanceOf(customElements.get('otp-verify')!);
    expect([el.token, el.proxy, el.name, el.required, el.deliveryPoll]).to.deep.equal(['t1', '/pay/api', 'proof', true, 50]);
    // An object reaches the element as itself, not as "[object Object]" in an attribute.
    expect(el.strings).to.equal(strings);
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part~="send-button"]')!.textContent!.trim()).to.equal('Text me a code');

    render(root, <OtpVerify ref={ref} token="t2" proxy="/other" />);
    expect([el.token, el.proxy]).to.deep.equal(['t2', '/other']);
    expect(ref.current).to.equal(el);
  });

  it('<PayByMobile> and <CheckoutButton> set their properties; children label the button', async () => {
    const pay = createRef<PayByMobileElement>();
    const checkout = createRef<CheckoutButtonElement>();
    render(
      root,
      <div>
        <PayByMobile ref={pay} token="p" amount={12.5} currency="XOF" timeout={30} />
        <CheckoutButton ref={checkout} token="c" mode="popup">
          Pay GHS 50
        </CheckoutButton>
      </div>,
    );
    expect([pay.current!.token, pay.current!.amount, pay.current!.currency, pay.current!.timeout]).to.deep.equal(['p', 12.5, 'XOF', 30]);
    expect([checkout.current!.token, checkout.current!.mode]).to.deep.equal(['c', 'popup']);
    expect(checkout.current!.textContent).to.equal('Pay GHS 50');
    // Once it read where its order stands (no proxy here: a new order's form).
    await pay.current!.updateComplete;
    await waitUntil(() => pay.current!.state == 'idle', 'the form shown');
    await pay.current!.updateComplete;
    expect(pay.current!.shadowRoot!.querySelector('[part~="phone-input"]')).to.exist;
  });

  /** Renders `component` with every callback recording the event it receives, then dispatches each event. */
  async function callbacksOf(component: object, callbacks: Record<string, string>) {
    const ref = createRef<HTMLElement>();
    const received: [string, Event][] = [];
    const props = Object.fromEntries(Object.keys(callbacks).map((name) => [name, (e: Event) => received.push([name, e])]));
    render(root, createElement(component as ExoticComponent<{ ref: typeof ref }>, { ref, ...props }));
    const sent = Object.entries(callbacks).map(([name, type]) => {
      const event = new MerchantEvent(type, { probe: name });
      ref.current!.dispatchEvent(event);
      return [name, event] as [string, Event];
    });
    expect(received).to.deep.equal(sent);
    // The very event objects, detail and all.
    received.forEach(([, e], i) => expect(e).to.equal(sent[i]![1]));
  }

  it('<OtpVerify> calls onOtpSent, onOtpVerified and onOtpFailed with the element events', () =>
    callbacksOf(OtpVerify, { onOtpSent: 'otp-sent', onOtpVerified: 'otp-verified', onOtpFailed: 'otp-failed' }));

  it('<PayByMobile> calls its five payment callbacks with the element events', () =>
    callbacksOf(PayByMobile, {
      onPaymentPending: 'payment-pending',
      onPaymentCompleted: 'payment-completed',
      onPaymentFailed: 'payment-failed',
      onPaymentCancelled: 'payment-cancelled',
      onPaymentBlocked: 'payment-blocked',
    }));

  it('speaks French with lang="fr" once merchant-elements/translations/fr is imported, amounts and words alike', async () => {
    const pay = createRef<PayByMobileElement>();
    const otp = createRef<OtpVerifyElement>();
    const token = 'h.' + btoa(JSON.stringify({ amount: 95, referenceNo: 'R-FR' })) + '.s';
    render(
      root,
      <div lang="fr">
        <PayByMobile ref={pay} token={token} />
        <OtpVerify ref={otp} token="o" />
      </div>,
    );
    await pay.current!.updateComplete;
    await waitUntil(() => pay.current!.state == 'idle', 'the form shown');
    // The amount's digits follow the frame that shows the form (its first render formats no number).
    await waitUntil(() => pay.current!.shadowRoot!.textContent!.includes('95,00'), 'the amount shown');
    await otp.current!.updateComplete;
    const words = (el: HTMLElement) => el.shadowRoot!.textContent!.replace(/\s+/g, ' ');
    expect(words(pay.current!)).to.contain('95,00 GHS').and.contain('Numéro mobile money').and.contain('Continuer');
    expect(words(otp.current!)).to.contain('Numéro de téléphone').and.contain('Envoyer le code');
  });

  it('<CheckoutButton> calls its five checkout callbacks with the element events', () =>
    callbacksOf(CheckoutButton, {
      onCheckoutOpened: 'checkout-opened',
      onCheckoutCompleted: 'checkout-completed',
      onCheckoutFailed: 'checkout-failed',
      onCheckoutCancelled: 'checkout-cancelled',
      onCheckoutExpired: 'checkout-expired',
    }));

  it('types each callback with its event: a typed detail reaches the handler', () => {
    const ref = createRef<OtpVerifyElement>();
    const proofs: string[] = [];
    const amounts: number[] = [];
    // Compile-time checks (npm run typecheck): each callback's event has its element's detail type.
    const otp: ComponentProps<typeof OtpVerify> = {
      ref,
      onOtpVerified: (e) => proofs.push(e.detail.proof),
      // @ts-expect-error an otp-failed detail has a code and a message, no proof
      onOtpFailed: (e) => e.detail.proof,
    };
    const pay: ComponentProps<typeof PayByMobile> = { onPaymentCompleted: (e) => amounts.push(e.detail.amount) };
    // @ts-expect-error deliveryPoll is a number of milliseconds
    const wrong: ComponentProps<typeof OtpVerify> = { deliveryPoll: 'soon' };
    // @ts-expect-error state is the element's to set: no prop
    const state: ComponentProps<typeof PayByMobile> = { state: 'completed' };
    // @ts-expect-error Lit's internals are no props
    const internal: ComponentProps<typeof CheckoutButton> = { requestUpdate: () => undefined };
    void [wrong, state, internal];

    render(
      root,
      <div>
        <OtpVerify {...otp} />
        <PayByMobile {...pay} />
      </div>,
    );
    ref.current!.dispatchEvent(new MerchantEvent('otp-verified', { proof: 'p.r.f', recipient: '233 24 *** **01' }));
    container.querySelector('pay-by-mobile')!.dispatchEvent(new MerchantEvent('payment-completed', { reference: 'R-1', amount: 12.5, currency: 'GHS' }));
    expect(proofs).to.deep.equal(['p.r.f']);
    expect(amounts).to.deep.equal([12.5]);
  });
});
