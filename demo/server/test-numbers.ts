import { PROMPT_LIFETIME_SECONDS, TEST_NUMBERS, type TestNumber } from '../../src/sandbox/test-numbers.js';
import { html, type RawHtml } from '../../src/sandbox/html.js';

/** The sandbox phone page of a number, as mounted by the demo server. */
export function phoneUrl(number?: string): string {
  return `/sandbox/__sandbox/phone${number ? `?number=${encodeURIComponent(number)}` : ''}`;
}

/** What a test number does, in a few words, read from the sandbox's own table so the two cannot drift. */
export function outcomeOf(number: TestNumber): string {
  if (number.accountName === null) return 'Unknown account: the lookup finds no one';
  switch (number.payment) {
    case 'COMPLETED':
      return `Payment completes by itself after about ${number.paymentAfterSeconds} s`;
    case 'FAILED':
      return number.refusedAtInitiation ? 'Payment refused at once: insufficient funds' : 'Payment fails';
    case 'CANCELLED':
      return 'The customer declines the payment';
    default:
      return number.neverEnds
        ? 'Payment stays pending until you approve or decline it on the phone: this network never answers by itself'
        : `Payment waits for you to approve or decline it on the phone; unanswered, the prompt expires after ${PROMPT_LIFETIME_SECONDS[number.network]} s`;
  }
}

/** The test numbers as a table, each with a link to its phone page (new tab). */
export function testNumbersTable(): RawHtml {
  const rows = Object.entries(TEST_NUMBERS).map(
    ([digits, number]) => html`<tr data-testid="test-number-${digits}">
  <td><code>${digits}</code></td>
  <td>${number.accountName ?? '(none)'}<br><span class="muted">${number.network}</span></td>
  <td>${outcomeOf(number)}</td>
  <td><a href="${phoneUrl(digits)}" target="_blank" rel="noopener" aria-label="Open the phone of ${digits} in a new tab">Phone ↗</a></td>
</tr>`,
  );
  return html`<div class="table-scroll"><table class="test-numbers">
<caption>Sandbox test numbers</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Account holder</th><th scope="col">What happens</th><th scope="col"><span class="visually-hidden">Phone page</span></th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
<p class="muted small">Any other Ghanaian mobile number (such as <code>024 123 4567</code>) gets its codes, and its payments
complete after about 5 s unless you decline them on its phone page first.</p>`;
}
