// The shop's pages load the elements from the package's main entry, as a merchant's bundler would.
import 'merchant-elements';

// An element only says what happened in this browser; the order page asks the shop's server, which asks
// the proxy. So on completion the page just goes there.
for (const type of ['payment-completed', 'checkout-completed'] as const) {
  document.addEventListener(type, (event) => {
    const orderUrl = (event.target as HTMLElement).dataset.orderUrl;
    if (orderUrl) location.assign(orderUrl);
  });
}
