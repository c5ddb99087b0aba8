import { html, page, RawHtml, refreshLink } from './html.js';
import { formatGhs } from './money.js';
import type { CheckoutRecord } from './state.js';
import { TEST_NUMBERS } from './test-numbers.js';

/** Number the hosted page's field starts with, as a Ghanaian writes it. */
export const DEFAULT_CHECKOUT_NUMBER = '024 000 0001';

/** A test number as a Ghanaian writes it: `233240000001` → `024 000 0001`. */
export const localFormat = (digits: string) => `0${digits.slice(3, 5)} ${digits.slice(5, 8)} ${digits.slice(8)}`;

const OUTCOME_LABELS: Readonly<Record<string, string>> = {
  '233240000001': 'pays',
  '233240000002': 'fails',
  '233200000003': 'customer cancels',
  '233260000004': 'stays processing until the session expires',
};

const CSS = `
  .amount { font-size: 2rem; font-weight: 700; margin: .5rem 0 0; }
  .badge { display: inline-block; font-size: .8rem; padding: .1rem .5rem; border-radius: 1rem; border: 1px solid #888; }
  ul.numbers { padding-left: 1.2rem; margin: .25rem 0 0; font-size: .9rem; }
  code { font-size: .95em; }
`;

function header(record: CheckoutRecord): RawHtml {
  return html`<p><span class="badge">Sandbox checkout</span></p>
<h1>${record.title}</h1>
<p class="muted">${record.description}</p>
<p class="amount">${formatGhs(record.amount)}</p>`;
}

/** Where the hosted page's two forms post. */
export interface PayPageActions {
  pay: string;
  cancel: string;
}

/** The payable session: mobile number field, Pay and Cancel. */
export function payPage(
  record: CheckoutRecord,
  actions: PayPageActions,
  entered = DEFAULT_CHECKOUT_NUMBER,
  error?: string,
): string {
  const numbers = Object.keys(TEST_NUMBERS)
    .filter((n) => n in OUTCOME_LABELS)
    .map((n) => html`<li><code>${localFormat(n)}</code>: ${OUTCOME_LABELS[n]}</li>`);
  const described = error ? 'msisdn-error msisdn-help' : 'msisdn-help';
  return page(
    { title: `Pay ${formatGhs(record.amount)}: ${record.title}`, css: CSS },
    html`<main>
${header(record)}
<form method="post" action="${actions.pay}" id="pay-form">
  <label for="msisdn">Mobile money number</label>
  <input id="msisdn" name="msisdn" type="tel" inputmode="tel" autocomplete="tel" required maxlength="20"
    value="${entered}" aria-describedby="${described}"${error ? new RawHtml(' aria-invalid="true"') : ''}>
  ${error ? html`<p id="msisdn-error" class="error" role="alert">${error}</p>` : ''}
  <div id="msisdn-help" class="muted">
    <p>A Ghanaian mobile number, written as you like (<code>024 000 0001</code>, <code>+233 24 000 0001</code>). Test numbers:</p>
    <ul class="numbers">${numbers}<li>any other valid Ghanaian number: pays</li></ul>
  </div>
</form>
<div class="actions">
  <button type="submit" class="primary" form="pay-form">Pay ${formatGhs(record.amount)}</button>
  <form method="post" action="${actions.cancel}"><button type="submit" class="secondary">Cancel</button></form>
</div>
</main>`,
  );
}

/**
 * Pay pressed: waiting for the outcome, read again every second. The sandbox settles a hosted-page payment by
 * itself, as the number decides (no prompt reaches the phone page), and the page says so.
 */
export function processingPage(record: CheckoutRecord): string {
  return page(
    { title: `Processing: ${record.title}`, watchSeconds: 1, css: CSS },
    html`<main>
${header(record)}
<p role="status" aria-live="polite"><strong>Processing…</strong> Paying from <code>${record.msisdn ? localFormat(record.msisdn) : ''}</code>.
In the sandbox the payment settles by itself in a few seconds, as the number decides (no prompt is sent to the
phone page). This page updates by itself and then takes you back to the merchant.</p>
${refreshLink}
</main>`,
  );
}

/** The session expired before it was paid. */
export function expiredPage(record: CheckoutRecord, returnUrl: string): string {
  return page(
    { title: `Expired: ${record.title}`, css: CSS },
    html`<main>
${header(record)}
<p role="alert">This checkout session has expired. No payment was taken.</p>
<p><a href="${returnUrl}">Return to the merchant</a></p>
</main>`,
  );
}

/** No session by that id. */
export function notFoundPage(): string {
  return page(
    { title: 'Checkout not found' },
    html`<main>
<h1>Checkout not found</h1>
<p>There is no checkout session at this address. It may have been mistyped, or the sandbox was restarted.</p>
</main>`,
  );
}
