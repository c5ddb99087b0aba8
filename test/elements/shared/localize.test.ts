import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/index.js';
import '../../../src/elements/translations/fr.js';
import { registerTranslation, type OtpVerify } from '../../../src/elements/index.js';
import { clock, money } from '../../../src/elements/shared/format.js';
import { part, text } from '../helpers.js';

describe('LocalizeController', () => {
  it('takes a registered language, English where it has no word', async () => {
    registerTranslation('ak', { send: 'Soma koodu' });
    const el = await fixture<OtpVerify>(html`<otp-verify lang="ak"></otp-verify>`);
    expect(text(el, 'send-button')).to.equal('Soma koodu');
    expect(part<HTMLInputElement>(el, 'phone-input')!.labels![0]!.textContent).to.equal('Phone number');
  });

  it('uses the language of the nearest lang attribute, a region falling back to its language', async () => {
    const wrap = await fixture<HTMLElement>(html`<div lang="fr-CI"><otp-verify></otp-verify></div>`);
    expect(text(wrap.querySelector('otp-verify')!, 'send-button')).to.equal('Envoyer le code');
  });

  it('formats money in the language with the ISO code, and countdowns as m:ss', () => {
    expect(money('en', 12.5, 'GHS').replace(/\s/g, ' ')).to.equal('GHS 12.50');
    expect(money('fr', 1234.5, 'GHS').replace(/\s/g, ' ')).to.equal('1 234,50 GHS');
    expect(money('en', 3, 'not a currency')).to.equal('not a currency 3');
    expect(clock(0)).to.equal('0:00');
    expect(clock(75)).to.equal('1:15');
  });
});
