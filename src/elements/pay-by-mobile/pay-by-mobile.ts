import { html, nothing } from 'lit';
import { clock, money } from '../shared/format.js';
import { numberClaim } from '../shared/token.js';
import { PayByMobileFlow } from './pay-by-mobile.flow.js';
import { isBlocked, localNumber, type PayByMobileState } from './pay-by-mobile.outcome.js';
import { payByMobileStyles } from './pay-by-mobile.styles.js';

/**
 * @summary Takes a mobile-money payment: number, account confirmation, approval on the phone, outcome.
 * @tagname pay-by-mobile
 *
 *
 * @event {MerchantEvent<PaymentRefDetail>} payment-pending - The request reached the phone (or a page found the order's payment waiting there): `detail` `{ reference }`.
 * @event {MerchantEvent<PaymentCompletedDetail>} payment-completed - Paid: `detail` `{ reference, orderReference, amount, currency }` (the attempt's and the order's).
 * @event {MerchantEvent<PaymentFailedDetail>} payment-failed - Failed: `detail` `{ reference, orderReference, code, message, canRetry }`.
 * @event {MerchantEvent<PaymentRefDetail>} payment-cancelled - Declined on the phone: `detail` `{ reference, orderReference }`.
 * @event {MerchantEvent<PaymentBlockedDetail>} payment-blocked - No payment of this order can be made here any more (attempts spent, order changed or paid another way), said as the page loads or after a try: `detail` `{ code, message }`; offer a new order or another way to pay.
 *
 * @csspart amount - The amount to pay; once the provider answered, what the phone asks (the charge included).
 * @csspart phone-input - The mobile-money number input.
 * @csspart continue-button - Looks the number's account up.
 * @csspart account - The confirmation question with the account holder's name and network, and the charge (estimated, or "may add a charge").
 * @csspart confirm-button - Sends the payment request to the phone.
 * @csspart change-button - Goes back to the number.
 * @csspart progress - The wait for approval: the prompt's age against its lifetime (indeterminate when the lifetime is unknown).
 * @csspart status - The polite live region (what is happening).
 * @csspart error-message - The assertive live region (what went wrong).
 * @csspart retry-button - Tries again (a new attempt while the order allows one), or checks the status again after the countdown.
 * @csspart check-button - While waiting: reads the payment's status now (the countdown goes on).
 * @csspart way-out - While waiting: the ways out (decline on the phone to use another number; leaving is safe).
 *
 * @cssproperty --pay-by-mobile-accent - Buttons, progress, focus ring (default `--me-accent`).
 * @cssproperty --pay-by-mobile-radius - Corner radius (default `--me-radius`).
 * @cssproperty --pay-by-mobile-font - Font family (default `--me-font`, else inherited).
 * @cssproperty --pay-by-mobile-surface - Background (default `--me-surface`).
 * @cssproperty --pay-by-mobile-text - Text colour (default `--me-text`).
 * @cssproperty --pay-by-mobile-danger - Error colour (default `--me-danger`).
 * @cssproperty --pay-by-mobile-success - Success colour (default `--me-success`).
 *
 * @cssstate idle - Waiting for a number: the form, drawn at once. Where the order stands (`GET /order`) is read meanwhile, and its answer switches to what it says (the payment waiting on a phone, from another tab or before a reload; a spent order's ways on), what was typed kept; the account is looked up only once it is known.
 * @cssstate looking-up - Looking the account up.
 * @cssstate confirm - Asking the customer to confirm the account and amount, and what the network adds (its estimate, or that it may add a charge).
 * @cssstate paying - Sending the payment request.
 * @cssstate pending - Waiting for approval on the phone: the number the prompt went to, how old it is and how long it stays open (the proxy's times, the same after a reload and in every tab; when the network's lifetime is unknown, no time is invented), and "Check again" (which leaves the countdown alone). There is no cancel: the provider has none, and the proxy keeps one attempt in flight per order, so another number would be refused. The element says the ways out that exist: declining on the phone ends the attempt (then "Try again" and "Use another number", nothing charged), and leaving is safe (the proxy goes on reading the payment and tells the shop). A prompt past its lifetime that the provider has not ended yet is said to have expired, still waiting for the network's word.
 * @cssstate unknown - The request went out but its answer was lost, and the provider cannot be read for it yet: the payment is being confirmed, the shop will tell how it ends, and nothing here starts another try.
 * @cssstate completed - Paid.
 * @cssstate failed - The payment failed; a retry is offered while attempts remain.
 * @cssstate cancelled - Declined on the phone.
 * @cssstate timed-out - No answer before the countdown ended (the prompt's lifetime unknown), or the proxy stopped waiting. The payment may still complete: its status is read now and then (a late completion is shown), and at once on "Check again".
 * @cssstate error - A call failed (unknown account, invalid number, network, expired token…).
 */
export class PayByMobile extends PayByMobileFlow {
  static override styles = payByMobileStyles;

  /**
   * One form (the number, then the confirmation of the account found), the wait with the prompt's age and
   * lifetime, the live regions saying what happened, then the ways on.
   *
   * While the phone is asked there is no "cancel": the provider has none, and the proxy keeps one attempt in
   * flight per order, so another number would be refused. The ways out that exist are said instead: declining
   * on the phone ends the attempt (then "Try again" and "Use another number" are offered, with nothing charged),
   * and leaving is safe (the proxy keeps reading the payment and tells the shop).
   */
  override render() {
    const { t, state, account, shownPayment: p, failure, still, countdown } = this;
    const e = account?.chargeEstimate ?? this.orderEstimate;
    const s = t.strings;
    const lang = t.lang;
    const busy = this.busy();
    const blocked = isBlocked(state, failure, p);
    // The first render draws the form without the amount's digits (a space holds their line): a page's first
    // number format loads the browser's number data, a tenth of a second on a slow phone. They come once that
    // render is on the screen (connectedCallback).
    const m = (x: number) => (this.hasUpdated ? money(lang, x, p?.currency ?? this.currency) : '\xa0');
    // The token's amount is what is charged.
    const charged = numberClaim(this.token, 'amount');
    const shown = isNaN(charged) ? this.amount : charged;
    const amount = shown == null ? '' : m(shown);
    const number = localNumber(p?.msisdn ?? '');
    // The proxy's times, on this device's clock.
    const sent = this.at(p?.sentAt);
    const expires = this.at(p?.promptExpiresAt);
    const expired = expires && expires <= Date.now() && s.promptExpired(new Intl.DateTimeFormat(lang, { timeStyle: 'short' }).format(expires));
    // What the phone asks: the total with its charge once the provider answered, on the number it went to.
    const approve = expired || (p?.totalAmount ? s.approveTotal(m(p.totalAmount), m(p.amount!), p.charge ? m(p.charge) : '', number) : s.approveTotal(amount, '', '', number));
    const error =
      state == 'failed'
        ? t.error(p!.failureCode!) + (blocked ? ' ' + s.ATTEMPTS_EXHAUSTED : '')
        : state == 'cancelled' && blocked
          ? s.ATTEMPTS_EXHAUSTED
          : state == 'error'
            ? t.error(failure!.code, failure!.details)
            : '';
    const status: Partial<Record<PayByMobileState, string>> = {
      'looking-up': s.lookingUp,
      paying: s.paying,
      pending: still ? `${approve} ${s.stillWaiting}` : approve,
      unknown: s.unknown,
      completed: s.completed,
      cancelled: s.declined,
      'timed-out': `${still ? s.stillWaiting : s.timedOut} ${expired || s.mayBeOpen(number)} ${s.safeToLeave}`,
    };
    const confirming = account && (state == 'confirm' || state == 'paying' || (state == 'error' && !p && !blocked));
    const change = html`<button type="button" class="link" part="change-button" ?disabled=${busy} @click=${this.handleChangeNumber}>${s.changeNumber}</button>`;
    const ended = state == 'failed' || state == 'cancelled' || state == 'timed-out';
    // After the sentence that says why: try again (or check again), or another number.
    const retry = this.retryAction && ended;
    const other = account && !blocked && (state == 'failed' || state == 'cancelled' || (state == 'error' && !confirming));
    return html`
      <p part="amount">${p?.totalAmount ? m(p.totalAmount) : amount}</p>
      <form @submit=${this.handleSubmit}>
        ${!account && (state == 'idle' || state == 'looking-up' || (state == 'error' && !blocked))
          ? html`<div class="field">
                <label for="input">${s.number}</label>
                <input id="input" part="phone-input" type="tel" autocomplete="tel" inputmode="tel" required maxlength="20"
                  .value=${this.value} ?readonly=${busy} aria-invalid=${state == 'error'} aria-describedby="error"
                  @input=${this.handleInput} />
              </div>
              <button part="continue-button" ?disabled=${busy}>${s.next}</button>`
          : confirming
            ? html`<p part="account" id="account">
                  ${s.confirm(e ? s.estimate(m(e.totalAmount), amount, m(e.charge)) : amount, account.accountName, account.network)}
                  ${e ? '' : s.mayCharge}
                </p>
                <button part="confirm-button" aria-describedby="account" ?disabled=${busy}>${s.pay(e ? s.about(m(e.totalAmount)) : amount)}</button>
                ${change}`
            : ''}
      </form>
      <p part="status" aria-live="polite" tabindex="-1" class=${state == 'completed' ? 'ok' : busy ? 'spin' : ''}>${status[state]}${this.statusStream.offline ? ' ' + s.offline : ''}</p>
      <p id="error" part="error-message" aria-live="assertive" tabindex="-1">${error}</p>
      ${state == 'pending'
        ? html`<progress part="progress" aria-label=${approve} max=${(sent && expires && expires - sent) || nothing}
              value=${(sent && expires && Date.now() - sent) || nothing}></progress>
            <div class="links">
              ${sent && !expired ? s.sentAgo(clock(Math.max(0, Math.round((Date.now() - sent) / 1e3)))) : ''}
              ${expires ? (countdown.left ? s.left(clock(countdown.left)) : '') : s.openUnknown}
              <button type="button" class="link" part="check-button" @click=${() => this.recheck()}>${s.checkAgain}</button>
            </div>`
        : ''}
      ${retry || other
        ? html`<div class="next">
            ${retry ? html`<button type="button" part="retry-button" @click=${this.retryAction}>${state == 'timed-out' ? s.checkAgain : s.tryAgain}</button>` : ''}
            ${other ? change : ''}
          </div>`
        : ''}
      ${state == 'pending' ? html`<p part="way-out">${expired ? s.safeToLeave : s.wayOut}</p>` : ''}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-by-mobile': PayByMobile;
  }
}
