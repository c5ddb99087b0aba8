import { html, type PropertyDeclarations, type PropertyValues } from 'lit';
import { checkoutPath, checkoutEventsPath, checkoutsPath } from '../../protocol/checkout-paths.js';
import type { CheckoutCreateResponse, CheckoutSnapshot } from '../../protocol/bodies.js';
import { LocalizeController } from '../shared/localize.js';
import { MerchantElement } from '../shared/merchant-element.js';
import { ProxyClientError } from '../shared/proxy-client.js';
import { StatusStreamController } from '../shared/status-stream.js';
import type { CheckoutMode } from './checkout-button.events.js';
import { notePopup } from './checkout-return.js';
import { checkoutButtonEn, type CheckoutButtonStrings } from './checkout-button.strings.js';
import { checkoutButtonStyles } from './checkout-button.styles.js';

export type CheckoutButtonState = 'idle' | 'creating' | 'open' | 'completed' | 'failed' | 'cancelled' | 'expired' | 'error';

/**
 * @summary Opens the provider's hosted checkout page and follows the payment while the page stays open.
 * @tagname checkout-button
 *
 *
 * @slot - The button's label (default "Pay now"). With the snippet's fallback form inside the tag instead (a
 *   `<form>` posting the token to the proxy's `/checkouts/start`, its `<button>` labelled as this button is),
 *   the label is that button's, and the element's token, when not set, is the form's `token` field.
 *
 * @event {MerchantEvent<CheckoutOpenedDetail>} checkout-opened - The page was opened: `detail` `{ checkoutId, checkoutUrl, mode }`.
 * @event {MerchantEvent<CheckoutDetail>} checkout-completed - Paid: `detail` `{ checkoutId }`.
 * @event {MerchantEvent<CheckoutDetail>} checkout-failed - The payment failed: `detail` `{ checkoutId }`.
 * @event {MerchantEvent<CheckoutDetail>} checkout-cancelled - The customer cancelled: `detail` `{ checkoutId }`.
 * @event {MerchantEvent<CheckoutDetail>} checkout-expired - The session expired unpaid: `detail` `{ checkoutId }`.
 *
 * @csspart button - The button.
 * @csspart status - The polite live region (what is happening).
 * @csspart error-message - The assertive live region (what went wrong).
 *
 * @cssproperty --checkout-button-accent - Button colour, focus ring (default `--me-accent`).
 * @cssproperty --checkout-button-radius - Corner radius (default `--me-radius`).
 * @cssproperty --checkout-button-font - Font family (default `--me-font`, else inherited).
 * @cssproperty --checkout-button-surface - Button text colour (default `--me-surface`).
 * @cssproperty --checkout-button-text - Status text colour (default `--me-text`).
 * @cssproperty --checkout-button-danger - Error colour (default `--me-danger`).
 * @cssproperty --checkout-button-success - Success colour (default `--me-success`).
 *
 * @cssstate idle - Ready.
 * @cssstate creating - Creating the checkout session.
 * @cssstate open - The checkout page is open; its status is watched. A click brings its popup or tab forward (or opens the same page again).
 * @cssstate completed - Paid.
 * @cssstate failed - The payment failed; a click starts a new checkout.
 * @cssstate cancelled - Cancelled; a click starts a new checkout.
 * @cssstate expired - Expired; a click starts a new checkout.
 * @cssstate error - Creating the session failed, or its page's address was not `https:` (`http:` only on localhost): such a page is never opened.
 */
export class CheckoutButton extends MerchantElement<CheckoutButtonState> {
  static override styles = checkoutButtonStyles;
  static override properties: PropertyDeclarations = {
    mode: {},
    strings: { attribute: false },
  };

  /**
   * How the checkout page opens: `redirect` (this tab), `popup`, or `tab`; a blocked window falls back to
   * redirect. While the page is open a click brings its window forward. A popup closes itself once the
   * provider sends it back to the shop's return page, when that page calls `closeCheckoutPopup()`.
   */
  mode: CheckoutMode = 'redirect';

  /** Overrides of some of the element's words. */
  strings?: Partial<CheckoutButtonStrings>;

  /** Sends this tab to a URL (the redirect mode and the fallback); replaceable for tests and single-page apps. */
  navigate = (url: string) => location.assign(url);

  /** The words of the fallback form's button, when the page gave one (the form is then in no slot: not shown). */
  private formLabel?: string;
  /** Why the last call failed: set with the state that shows it (whose change renders it), read only in that state. */
  private failure?: ProxyClientError;
  private session?: CheckoutCreateResponse;
  /**
   * The popup or tab showing the checkout page, kept so that a second click focuses it. (It cannot be closed
   * from here: its opener link is cut, so that the provider's page cannot reach back into the shop's tab, and
   * Chromium lets only a window's opener close it. The return page closes it: see checkout-return.ts.)
   */
  private win?: Window | null;

  private readonly t = new LocalizeController(this, checkoutButtonEn);
  private readonly statusStream = new StatusStreamController<CheckoutSnapshot>(this, this.client);

  override connectedCallback() {
    super.connectedCallback();
    // Moved in the page: the disconnect stopped the calls and the watch.
    if (this.state == 'open') this.watch(this.session!.checkoutId);
    else if (this.state == 'creating') this.setState('idle');
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    // The snippet's fallback form, before the first render: the element's button is then drawn without a slot,
    // so the form is neither shown nor announced, with the form's words (its button's: a hidden field has none);
    // the token is the form's when the element has none.
    const form = !this.hasUpdated && this.querySelector('form');
    if (form) (this.formLabel = form.textContent!.trim()), (this.token ||= form.token?.value);
    if (this.hasUpdated && changed.has('token') && this.state != 'completed') {
      this.statusStream.stop();
      this.client.abort();
      this.session = undefined;
      this.setState('idle');
    }
  }

  /**
   * Adopts the fallback form: a press on it before now posted the form (the proxy gives that press and the
   * element's the same session); from now on presses are the element's, and the focus passes to its button.
   */
  protected override firstUpdated() {
    // The form's button is the only thing in the tag that takes the focus; the host passes it to its own button.
    if (this.querySelector(':focus')) this.renderRoot.querySelector('button')!.focus();
  }

  private async handleClick() {
    const { state, session: checkout } = this;
    if (state == 'creating' || state == 'completed') return;
    // Open already: show the same page again rather than start a second session (or a second tab).
    if (state == 'open' && checkout) return this.win && !this.win.closed ? this.win.focus() : this.showPage(checkout);
    // Open the popup or tab inside the click: after the await the click's user activation may be gone (a
    // slow network) and the browser would block it. It is pointed at the checkout page once that exists.
    const win = this.newWindow('about:blank');
    this.setState('creating');
    try {
      const created = await this.client.post<CheckoutCreateResponse>(checkoutsPath, {});
      if (!safeUrl(created.checkoutUrl)) throw new ProxyClientError('UNSAFE_URL', created.checkoutUrl);
      this.session = created;
      this.setState('open');
      this.showPage(created, win);
      this.watch(created.checkoutId);
    } catch (e) {
      win?.close();
      if ((e as Error).name == 'AbortError') return;
      this.failure = e instanceof ProxyClientError ? e : new ProxyClientError('NETWORK', String(e));
      this.setState('error');
    }
  }

  /** A popup or tab for the mode (null in redirect mode, or when the browser blocked it). */
  private newWindow(url: string) {
    const mode = this.mode;
    return mode == 'popup'
      ? window.open(url, 'merchant-elements-checkout', 'popup,width=480,height=720')
      : mode == 'tab'
        ? window.open(url, '_blank')
        : null;
  }

  /** Shows the checkout page in `win` (opened blank during the click), a new window, or this tab. */
  private showPage({ checkoutId, checkoutUrl, expiresAt }: CheckoutCreateResponse, blank?: Window | null) {
    let mode = this.mode;
    // A blank window of ours is still same-origin: cut its opener (the provider's page must not reach back
    // into the shop's tab) and send it on. Without one, open the page directly (a click on an open session).
    if (blank) (blank.opener = null), blank.location.replace(checkoutUrl);
    const win = (this.win = blank === undefined ? this.newWindow(checkoutUrl) : blank);
    if (win) win.focus(), mode == 'popup' && notePopup({ checkoutId, until: Date.parse(expiresAt) || Date.now() + 18e5 });
    else this.navigate(checkoutUrl), (mode = 'redirect');
    this.emit('checkout-opened', { checkoutId, checkoutUrl, mode });
  }

  private watch(checkoutId: string) {
    this.statusStream.start({
      events: checkoutEventsPath(checkoutId),
      snapshot: checkoutPath(checkoutId),
      isFinal,
      onStatus: (c) => {
        if (isFinal(c)) this.setState(c.status), this.emit(`checkout-${c.status}`, { checkoutId });
      },
      onError: (e) => {
        this.failure = e;
        this.setState('error');
      },
    });
  }

  override render() {
    const s = this.t.strings;
    const { state } = this;
    const busy = state == 'creating';
    const failed = state == 'failed' || state == 'error';
    // Open with the connection gone: said after what to do, which stays.
    const status = state == 'failed' || state == 'idle' || state == 'error' ? '' : s[state] + (state == 'open' && this.statusStream.offline ? ' ' + s.offline : '');
    return html`
      <button part="button" ?disabled=${busy || state == 'completed'} aria-busy=${busy} aria-describedby="error"
        @click=${this.handleClick}>${this.formLabel ?? html`<slot>${s.label}</slot>`}</button>
      <p part="status" aria-live="polite" class=${state == 'completed' ? 'ok' : ''}>${status}</p>
      <p id="error" part="error-message" aria-live="assertive">
        ${failed ? (state == 'failed' ? s.failed : this.t.error(this.failure!.code, this.failure!.details)) : ''}
      </p>
    `;
  }
}

/** A session's status that no longer changes. */
const isFinal = (c: CheckoutSnapshot): c is CheckoutSnapshot & { status: 'completed' | 'failed' | 'cancelled' | 'expired' } => c.status != 'pending' && c.status != 'processing';

/**
 * True for an address the customer may be sent to: `https:`, or `http:` on this machine (the sandbox). Never
 * `javascript:`, `data:` or a plain-text `http:` page elsewhere, whatever a misconfigured proxy answers.
 */
function safeUrl(url: string) {
  try {
    // Relative to the page (a page of the shop's own origin): then the page's scheme decides.
    const { protocol, hostname } = new URL(url, location.href);
    return protocol == 'https:' || (protocol == 'http:' && /^(localhost|127\.0\.0\.1|\[::1\])$/.test(hostname));
  } catch {
    return false;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'checkout-button': CheckoutButton;
  }
}
