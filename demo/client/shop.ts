// The shop's pages load the elements from the package's main entry, as a merchant's bundler would.
import { closeCheckoutPopup } from 'merchant-elements';

// The order page is the checkout's return page: if it opened in the popup of a <checkout-button
// mode="popup">, it closes itself (the shop's tab, watching the checkout, goes to the order).
if (new URLSearchParams(location.search).has('checkoutId')) void closeCheckoutPopup();

// The checkout page lets the customer choose how the hosted page opens.
document.querySelector('[data-testid="checkout-mode"]')?.addEventListener('change', (event) => {
  const button = document.querySelector('checkout-button');
  if (button) button.mode = (event.target as HTMLInputElement).value as typeof button.mode;
});

// An element only says what happened in this browser; the order page asks the shop's server, which asks
// the proxy. So on completion the page just goes there.
for (const type of ['payment-completed', 'checkout-completed'] as const) {
  document.addEventListener(type, (event) => {
    const orderUrl = (event.target as HTMLElement).dataset.orderUrl;
    if (orderUrl) location.assign(orderUrl);
  });
}

// No payment of this order can be made here (attempts spent, paid the other way, changed): the element says
// why; the page offers what is still possible: the hosted checkout when only mobile money is spent, and a new
// order of the same goods (the cart filled again, so nothing has to be picked twice).
document.addEventListener('payment-blocked', (event) => {
  const element = event.target as HTMLElement;
  const orderUrl = element.dataset.orderUrl;
  if (!orderUrl || element.nextElementSibling?.matches('[data-testid="payment-blocked"]')) return;
  const next = document.createElement('div');
  next.dataset.testid = 'payment-blocked';
  next.className = 'actions';
  const spent = event.detail.code == 'ATTEMPTS_EXHAUSTED';
  next.innerHTML = `<a class="button primary"></a>
    <form method="post" class="inline-form"><button type="submit" class="button secondary">Start a new order with these goods</button></form>`;
  const link = next.querySelector('a')!;
  link.href = spent ? `${orderUrl}/checkout` : orderUrl;
  link.textContent = spent ? 'Pay on the checkout page' : 'See the order';
  next.querySelector('form')!.action = `${orderUrl}/reorder`;
  element.after(next);
});

// The order page while a payment is in progress: it asks the shop's server again every few seconds (never a
// <meta http-equiv="refresh">, which reloads under a reader's feet) and, when the status changed, puts the new
// words in the banner (a live region, announced) and the new details below it.
const banner = document.querySelector<HTMLElement>('[data-testid="order-status"][data-watch-seconds]');
if (banner) void watchOrder(banner, Number(banner.dataset.watchSeconds) * 1000);

async function watchOrder(banner: HTMLElement, interval: number) {
  // Back from the hosted page, the provider's answer comes within seconds; after a minute the page stops
  // saying "checking" and shows the order as it is.
  for (let reads = 0; ; reads++) {
    await new Promise((resolve) => setTimeout(resolve, interval));
    if (banner.dataset.status == 'checking' && reads * interval > 60_000) return location.replace(location.pathname);
    const res = await fetch(location.href, { headers: { accept: 'text/html' } }).catch(() => undefined);
    if (!res?.ok) continue;
    const next = new DOMParser().parseFromString(await res.text(), 'text/html');
    const nextBanner = next.querySelector<HTMLElement>('[data-testid="order-status"]');
    const details = next.getElementById('order-details');
    if (!nextBanner || !details) continue;
    if (nextBanner.dataset.status != banner.dataset.status) {
      banner.className = nextBanner.className;
      banner.dataset.status = nextBanner.dataset.status!;
      banner.textContent = nextBanner.textContent;
      document.getElementById('order-details')!.replaceChildren(...details.childNodes);
    }
    if (!nextBanner.hasAttribute('data-watch-seconds')) return;
  }
}
