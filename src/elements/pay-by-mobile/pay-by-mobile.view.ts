import { html } from 'lit';
import type { AccountLookupResponse, PaymentSnapshot } from '../../protocol/schemas.js';
import { clock, money, type LocalizeController } from '../shared/localize.js';
import type { ProxyClientError } from '../shared/proxy-client.js';
import type { PayByMobileStrings } from './pay-by-mobile.strings.js';
import type { PayByMobileState } from './pay-by-mobile.outcome.js';

/** What the element's template shows: its state, read by the element on each render. */
export interface PayByMobileView {
  t: LocalizeController<PayByMobileStrings>;
  state: PayByMobileState;
  account: AccountLookupResponse | undefined;
  payment: (Partial<PaymentSnapshot> & { reference: string }) | undefined;
  failure: ProxyClientError | undefined;
  /** The masked number a prompt of this order went to, when it is not the one confirmed here. */
  prompt: string | undefined;
  /** A check found the payment still waiting for the phone. */
  still: boolean;
  value: string;
  /** Seconds of the wait for approval, and seconds left of it. */
  timeout: number;
  left: number;
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
 * with its countdown, the way on after an outcome, and the live regions.
 *
 * While the phone is asked there is no "cancel": the provider has none, and the proxy keeps one attempt in
 * flight per order, so another number would be refused. The ways out that exist are said instead: declining
 * on the phone ends the attempt (then "Try again" and "Use another number" are offered, with nothing charged),
 * and leaving is safe (the proxy keeps reading the payment and tells the shop).
 */
export function renderPayByMobile(v: PayByMobileView, on: PayByMobileActions) {
  const { t, state, account, payment, failure, prompt, busy, blocked, timeout, left } = v;
  const s = t.strings;
  const lang = t.lang;
  const cur = v.currency;
  const total = isNaN(v.amount) ? '' : money(lang, v.amount, cur);
  // What the phone asks once the provider answered: the total, with its charge.
  const approve = prompt
    ? s.promptSent(prompt)
    : payment?.totalAmount
      ? s.approveTotal(money(lang, payment.totalAmount, cur), money(lang, payment.amount!, cur), payment.charge ? money(lang, payment.charge, cur) : '')
      : s.approve;
  const error =
    state == 'failed'
      ? t.error(payment?.failureCode ?? 'PAYMENT_FAILED') + (blocked ? ' ' + s.ATTEMPTS_EXHAUSTED : '')
      : state == 'cancelled' && blocked
        ? s.ATTEMPTS_EXHAUSTED
        : state == 'error'
          ? t.error(failure!.code, failure!.details)
          : '';
  const status: Partial<Record<PayByMobileState, string>> = {
    'looking-up': s.lookingUp,
    paying: s.paying,
    pending: v.still ? `${approve} ${s.stillWaiting}` : approve,
    completed: s.completed,
    cancelled: s.declined,
    'timed-out': `${v.still ? s.stillWaiting : s.timedOut} ${s.safeToLeave}`,
  };
  return html`
    <p part="amount">${total}</p>
    <form @submit=${on.submit}>
      ${!account && (state == 'idle' || state == 'looking-up' || (state == 'error' && !blocked))
        ? html`<div class="field">
              <label for="input">${s.number}</label>
              <input id="input" part="phone-input" type="tel" autocomplete="tel" inputmode="tel" required maxlength="20"
                .value=${v.value} ?readonly=${busy} aria-invalid=${state == 'error'} aria-describedby="error"
                @input=${on.input} />
            </div>
            <button part="continue-button" ?disabled=${busy}>${s.next}</button>`
        : account && (state == 'confirm' || state == 'paying' || (state == 'error' && !payment && !blocked))
          ? html`<p part="account">${s.confirm(total, account.accountName, account.network)}</p>
              <button part="confirm-button" ?disabled=${busy}>${s.pay(total)}</button>`
          : ''}
      ${state == 'pending'
        ? html`<progress part="progress" aria-label=${s.approve} max=${timeout} .value=${timeout - left}></progress>
            <div class="links">
              ${s.left(clock(left))}
              <button type="button" class="link" part="check-button" @click=${on.check}>${s.checkAgain}</button>
            </div>`
        : ''}
      ${v.canRetry && (state == 'failed' || state == 'cancelled' || state == 'timed-out')
        ? html`<button type="button" part="retry-button" @click=${on.retry}>
            ${state == 'timed-out' ? s.checkAgain : s.tryAgain}
          </button>`
        : ''}
      ${account && !busy && !blocked && state != 'completed' && state != 'timed-out'
        ? html`<button type="button" class="link" part="change-button" @click=${on.changeNumber}>${s.changeNumber}</button>`
        : ''}
    </form>
    <p part="status" aria-live="polite" class=${state == 'completed' ? 'ok' : busy ? 'spin' : ''}>${status[state]}</p>
    <p id="error" part="error-message" aria-live="assertive">${error}</p>
    ${state == 'pending' ? html`<p part="way-out">${s.wayOut}</p>` : ''}
  `;
}
