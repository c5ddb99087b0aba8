import { html, nothing } from 'lit';
import type { AccountLookupResponse, ChargeEstimate, PaymentSnapshot } from '../../protocol/bodies.js';
import { clock, money, type LocalizeController } from '../shared/localize.js';
import type { ProxyClientError } from '../shared/proxy-client.js';
import type { PayByMobileStrings } from './pay-by-mobile.strings.js';
import { localNumber, type PayByMobileState } from './pay-by-mobile.outcome.js';

/** What the element's template shows: its state, read by the element on each render. */
export interface PayByMobileView {
  t: LocalizeController<PayByMobileStrings>;
  state: PayByMobileState;
  account: AccountLookupResponse | undefined;
  payment: (Partial<PaymentSnapshot> & { reference: string }) | undefined;
  failure: ProxyClientError | undefined;
  /** A check found the payment still waiting for the phone. */
  still: boolean;
  value: string;
  /** Seconds of the wait for approval when the prompt's lifetime is unknown, and seconds left of the wait. */
  timeout: number;
  left: number;
  /** Milliseconds this device's clock is behind the proxy's (the payment's times are the proxy's). */
  skew: number;
  /** What the network will most likely add, when the shop's configuration knows it. */
  estimate: ChargeEstimate | null | undefined;
  /** A call or the wait is under way. */
  busy: boolean;
  /** Nothing more can be paid here. */
  blocked: boolean;
  /** The amount the token charges (NaN when unknown), and its currency. */
  amount: number;
  currency: string;
  /** A new attempt (or a check, after the countdown) is offered. */
  canRetry: boolean;
}

/** What the template's controls call back. */
export interface PayByMobileActions {
  submit(e: SubmitEvent): void;
  input(e: InputEvent): void;
  check(): void;
  retry(): void;
  changeNumber(): void;
}

/**
 * The element's shadow content: one form (the number, then the confirmation of the account found), the wait
 * with the prompt's age and lifetime, the live regions saying what happened, then the ways on.
 *
 * While the phone is asked there is no "cancel": the provider has none, and the proxy keeps one attempt in
 * flight per order, so another number would be refused. The ways out that exist are said instead: declining
 * on the phone ends the attempt (then "Try again" and "Use another number" are offered, with nothing charged),
 * and leaving is safe (the proxy keeps reading the payment and tells the shop).
 */
export function renderPayByMobile(v: PayByMobileView, on: PayByMobileActions) {
  const { t, state, account, payment: p, failure, busy, blocked, left, estimate: e, still } = v;
  const s = t.strings;
  const lang = t.lang;
  const m = (x: number) => money(lang, x, v.currency);
  const amount = isNaN(v.amount) ? '' : m(v.amount);
  const number = p?.msisdn ? localNumber(p.msisdn) : '';
  // The proxy's times, on this device's clock.
  const at = (iso?: string | null) => (iso ? Date.parse(iso) - v.skew : 0);
  const sent = at(p?.sentAt);
  const expires = at(p?.promptExpiresAt);
  const expired = expires && expires <= Date.now() && s.promptExpired(new Intl.DateTimeFormat(lang, { timeStyle: 'short' }).format(expires));
  // What the phone asks: the total with its charge once the provider answered, on the number it went to.
  const approve = expired || (p?.totalAmount ? s.approveTotal(m(p.totalAmount), m(p.amount!), p.charge ? m(p.charge) : '', number) : s.approveTotal(amount, '', '', number));
  const error =
    state == 'failed'
      ? t.error(p?.failureCode ?? 'PAYMENT_FAILED') + (blocked ? ' ' + s.ATTEMPTS_EXHAUSTED : '')
      : state == 'cancelled' && blocked
        ? s.ATTEMPTS_EXHAUSTED
        : state == 'error'
          ? t.error(failure!.code, failure!.details)
          : '';
  const status: Partial<Record<PayByMobileState, string>> = {
    loading: s.loading,
    'looking-up': s.lookingUp,
    paying: s.paying,
    pending: still ? `${approve} ${s.stillWaiting}` : approve,
    unknown: s.unknown,
    completed: s.completed,
    cancelled: s.declined,
    'timed-out': `${still ? s.stillWaiting : s.timedOut} ${expired || s.mayBeOpen(number)} ${s.safeToLeave}`,
  };
  const confirming = account && (state == 'confirm' || state == 'paying' || (state == 'error' && !p && !blocked));
  const change = html`<button type="button" class="link" part="change-button" ?disabled=${busy} @click=${on.changeNumber}>${s.changeNumber}</button>`;
  const ended = state == 'failed' || state == 'cancelled' || state == 'timed-out';
  // After the sentence that says why: try again (or check again), or another number.
  const retry = v.canRetry && ended;
  const other = account && !blocked && (state == 'failed' || state == 'cancelled' || (state == 'error' && !confirming));
  return html`
    <p part="amount">${p?.totalAmount ? m(p.totalAmount) : amount}</p>
    <form @submit=${on.submit}>
      ${!account && (state == 'idle' || state == 'looking-up' || (state == 'error' && !blocked))
        ? html`<div class="field">
              <label for="input">${s.number}</label>
              <input id="input" part="phone-input" type="tel" autocomplete="tel" inputmode="tel" required maxlength="20"
                .value=${v.value} ?readonly=${busy} aria-invalid=${state == 'error'} aria-describedby="error"
                @input=${on.input} />
            </div>
            <button part="continue-button" ?disabled=${busy}>${s.next}</button>`
        : confirming
          ? html`<p part="account">
                ${s.confirm(e ? s.estimate(m(e.totalAmount), amount, m(e.charge)) : amount, account.accountName, account.network)}
                ${e ? '' : s.mayCharge}
              </p>
              <button part="confirm-button" ?disabled=${busy}>${s.pay(e ? s.about(m(e.totalAmount)) : amount)}</button>
              ${change}`
          : ''}
      ${state == 'pending'
        ? html`<progress part="progress" aria-label=${s.approve} max=${(sent && expires && expires - sent) || nothing}
              value=${(sent && expires && Date.now() - sent) || nothing}></progress>
            <div class="links">
              ${sent ? s.sentAgo(clock(Math.max(0, Math.round((Date.now() - sent) / 1e3)))) : ''}
              ${expires ? (left ? s.left(clock(left)) : '') : s.openUnknown}
              <button type="button" class="link" part="check-button" @click=${on.check}>${s.checkAgain}</button>
            </div>`
        : ''}
    </form>
    <p part="status" aria-live="polite" tabindex="-1" class=${state == 'completed' ? 'ok' : busy ? 'spin' : ''}>${status[state]}</p>
    <p id="error" part="error-message" aria-live="assertive" tabindex="-1">${error}</p>
    ${retry || other
      ? html`<div class="next">
          ${retry ? html`<button type="button" part="retry-button" @click=${on.retry}>${state == 'timed-out' ? s.checkAgain : s.tryAgain}</button>` : ''}
          ${other ? change : ''}
        </div>`
      : ''}
    ${state == 'pending' ? html`<p part="way-out">${expired ? s.safeToLeave : s.wayOut}</p>` : ''}
  `;
}
