import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import '../../../src/elements/index.js';
import type { PayByMobile } from '../../../src/elements/index.js';
import { part } from '../helpers.js';

/** Once the element read its order (no proxy here: it shows the form). */
const ready = async (el: PayByMobile) => {
  await waitUntil(() => el.state == 'idle', 'the form shown');
  await el.updateComplete;
};

const buttonColour = async (el: PayByMobile) => {
  await ready(el);
  return getComputedStyle(part(el, 'continue-button')!).backgroundColor;
};

describe('theme tokens', () => {
  afterEach(() => emulateMedia({ colorScheme: 'light' }));

  it('layers the element property over the library token over the default', async () => {
    const plain = await fixture<PayByMobile>(html`<pay-by-mobile></pay-by-mobile>`);
    expect(await buttonColour(plain)).to.equal('rgb(29, 78, 216)');
    const themed = await fixture<PayByMobile>(html`<pay-by-mobile style="--me-accent: rgb(0, 128, 0)"></pay-by-mobile>`);
    expect(await buttonColour(themed)).to.equal('rgb(0, 128, 0)');
    const own = await fixture<PayByMobile>(
      html`<div style="--me-accent: rgb(0, 128, 0)">
        <pay-by-mobile style="--pay-by-mobile-accent: rgb(128, 0, 0)"></pay-by-mobile>
      </div>`,
    );
    expect(await buttonColour(own.querySelector('pay-by-mobile')!)).to.equal('rgb(128, 0, 0)');
  });

  it('inherits the page font unless a token sets one', async () => {
    const wrap = await fixture<HTMLElement>(html`<div style="font-family: Georgia"><pay-by-mobile></pay-by-mobile></div>`);
    const el = wrap.querySelector('pay-by-mobile')!;
    expect(getComputedStyle(el).fontFamily).to.equal('Georgia');
    el.style.setProperty('--me-font', 'Verdana');
    expect(getComputedStyle(el).fontFamily).to.equal('Verdana');
  });

  it('follows a dark colour scheme, still accessible', async () => {
    await emulateMedia({ colorScheme: 'dark' });
    const el = await fixture<PayByMobile>(html`<pay-by-mobile amount="5"></pay-by-mobile>`);
    expect(getComputedStyle(el).backgroundColor).to.equal('rgb(31, 35, 40)');
    expect(await buttonColour(el)).to.equal('rgb(138, 180, 248)');
    await expect(el).to.be.accessible();
  });

  it('shows a focus ring on the control focused by keyboard', async () => {
    const el = await fixture<PayByMobile>(html`<pay-by-mobile></pay-by-mobile>`);
    await ready(el);
    el.focus();
    const input = part(el, 'phone-input')!;
    expect(getComputedStyle(input).outlineStyle).to.equal('solid');
    expect(getComputedStyle(input).outlineWidth).to.equal('3px');
  });
});
