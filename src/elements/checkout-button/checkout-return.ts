/**
 * How a checkout popup closes itself. The element cuts the popup's opener link (so the provider's page
 * cannot reach back into the shop's tab), so neither the shop's tab nor the popup can use `window.opener`;
 * but a window opened by script may close itself. When `<checkout-button mode="popup">` opens a checkout it
 * notes the checkout in the shop origin's `localStorage`; the shop's return page, where the provider sends
 * the popup back, finds the note, removes it and closes its window. A note, not a message: by then the shop's
 * tab may have left the element's page (to the order, on `checkout-completed`). Nothing else is kept: no
 * status, no token (the element reads the outcome from the proxy).
 */
const KEY = 'merchant-elements:checkout-popup';

/** What the element notes when it opens a checkout in a popup. */
interface PopupNote {
  checkoutId: string;
  /** Epoch milliseconds after which the note is ignored (the checkout's expiry). */
  until: number;
}

/** Notes (or with `undefined`, forgets) the checkout open in a popup of this origin. */
export function notePopup(note?: PopupNote) {
  try {
    if (note) localStorage[KEY] = JSON.stringify(note);
    else delete localStorage[KEY];
  } catch {
    // Storage refused (private mode, a sandboxed frame): the popup stays open on the return page.
  }
}

/**
 * On the shop's return page (the checkout's `returnUrl`): closes this window when it is the popup that a
 * `<checkout-button mode="popup">` of this origin opened for this checkout; the shop's tab, watching the
 * checkout, shows the outcome. Anywhere else (redirect or tab mode, a bookmark) the page stays.
 *
 * @param checkoutId The checkout this page returns from: by default the `checkoutId` of the page's query
 *   (the sandbox adds it to `returnUrl`); `null` (no such parameter) matches the checkout last opened in a popup.
 * @returns true when the window was asked to close.
 */
export function closeCheckoutPopup(checkoutId: string | null = new URLSearchParams(location.search).get('checkoutId')): boolean {
  let note: PopupNote | undefined;
  try {
    note = JSON.parse(localStorage[KEY]);
  } catch {
    return false;
  }
  if (!note || note.until < Date.now() || (checkoutId != null && checkoutId != note.checkoutId)) return false;
  notePopup();
  window.close();
  return true;
}
