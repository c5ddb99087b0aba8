import { TEST_NUMBERS } from '../../src/sandbox/index.js';
import { html, type RawHtml } from '../../src/sandbox/html.js';
import { SHOP_NAME } from './catalogue.js';
import type { Session } from './sessions.js';
import { phoneUrl, testNumbersTable } from './test-numbers.js';

/** What a shop page is made of. */
export interface PageParts {
  title: string;
  /** The visitor's session: the header shows their cart and who is signed in. */
  session?: Session;
  body: RawHtml;
  /**
   * How the page loads the elements: `vite` (the shop's module, through Vite), `cdn` (the package's
   * loader, `cdn/loader.js`, which fetches the elements the page shows), or `none`.
   */
  elements?: 'vite' | 'cdn' | 'none';
  /** Extra markup at the end of `<head>`. */
  head?: RawHtml;
}

/** A shop page: header, the page's content, the sandbox phone panel, and footer. */
export function layout(parts: PageParts): string {
  const cartCount = [...(parts.session?.cart.values() ?? [])].reduce((a, b) => a + b, 0);
  const customer = parts.session?.customer;
  const scripts = {
    vite: html`<script type="module" src="/client/shop.ts"></script>`,
    cdn: html`<script type="module" src="/cdn/loader.js"></script>`,
    none: html``,
  }[parts.elements ?? 'none'];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · ${SHOP_NAME}</title>
<link rel="icon" href="/favicon.svg">
<link rel="stylesheet" href="/shop.css">
${scripts}
${parts.head ?? ''}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
  <a class="brand" href="/"><span aria-hidden="true">🧺</span> ${SHOP_NAME}</a>
  <nav aria-label="Main">
    <a href="/">Shop</a>
    <a href="/cart" data-testid="nav-cart">Cart${cartCount ? html` <span class="badge" aria-label="${cartCount} items">${cartCount}</span>` : ''}</a>
    ${customer
      ? html`<a href="/account" data-testid="nav-account">${customer.recipient}</a>`
      : html`<a href="/sign-in" data-testid="nav-sign-in">Sign in</a>`}
    <a href="/embed" class="wide-only">Embedding</a>
    <a href="#phone-panel-title" class="phone-jump">Phone</a>
  </nav>
</header>
<div class="page">
<main id="main" tabindex="-1">
${parts.body}
</main>
${phonePanel(customer?.digits)}
</div>
<footer class="site-footer">
  <p>A demo of <strong>merchant-elements</strong> on the local sandbox: no real SMS is sent and no real money moves.</p>
  <p><a href="/embed">Embedding demos</a> · <a href="/sandbox/__sandbox/">Sandbox</a> · <a href="/sandbox/__sandbox/outbox">Outbox</a> ·
  <a href="/sandbox/__sandbox/payments">Payments received</a> · <a href="/merchant-elements/health">Proxy health</a></p>
</footer>
</body>
</html>
`.value;
}

/**
 * The customer's phone, where codes and payment prompts arrive: on wide screens a live frame of the
 * sandbox phone page beside the shop (a form picks the number), everywhere the test numbers with links.
 * It shows the signed-in customer's number, else the first test number.
 */
function phonePanel(customerDigits?: string): RawHtml {
  const known = Object.entries(TEST_NUMBERS).map(([digits, n]) => [digits, n.accountName ?? 'unknown account'] as const);
  const numbers = customerDigits && !TEST_NUMBERS[customerDigits] ? [[customerDigits, 'you'] as const, ...known] : known;
  const first = customerDigits ?? known[0]?.[0];
  const options = numbers.map(
    ([digits, who]) => html`<option value="${digits}"${digits === first ? html` selected` : ''}>${digits} (${who})</option>`,
  );
  return html`<aside class="phone-panel" aria-labelledby="phone-panel-title" data-testid="phone-panel">
  <h2 id="phone-panel-title"><span aria-hidden="true">📱</span> The customer’s phone</h2>
  <p>Codes and payment prompts arrive on the sandbox phone, as they would on a real one.
  Read the code there, or approve or decline a payment.</p>
  <form class="phone-picker" action="/sandbox/__sandbox/phone" method="get" target="sandbox-phone">
    <label for="phone-number">Number</label>
    <select id="phone-number" name="number">${options}</select>
    <button type="submit" class="button secondary">Show</button>
  </form>
  <iframe class="phone-frame" name="sandbox-phone" title="Sandbox phone" src="${phoneUrl(first)}" loading="lazy"></iframe>
  <p><a href="${phoneUrl(first)}" target="_blank" rel="noopener" data-testid="phone-link">Open the phone page in a new tab ↗</a></p>
  <details class="test-numbers-details">
    <summary>Test numbers</summary>
    ${testNumbersTable()}
  </details>
</aside>`;
}

/** An error or notice box; `role="alert"` so a screen reader announces it when the page loads. */
export function alertBox(message: string, testId: string): RawHtml {
  return html`<p class="alert" role="alert" data-testid="${testId}">${message}</p>`;
}
