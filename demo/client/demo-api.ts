// The single-page demos' calls to the shop's server (demo/server/embed-routes.ts). The server decides
// every amount and reference; a page only asks for an order and gets back a token bound to it.

/** A demo order and a token bound to it. */
export interface DemoOrder {
  reference: string;
  amount: number;
  currency: string;
  /** The order page, which shows the payment as the server knows it. */
  orderUrl: string;
  token: string;
}

async function post<T>(path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(`/demo-api${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const data = await res.json();
  if (!res.ok) throw new Error(data.message ?? `The shop answered ${res.status}.`);
  return data as T;
}

/** Creates a demo order with a token for `<pay-by-mobile>` (`payment`) or `<checkout-button>` (`checkout`). */
export function createOrder(kind: 'payment' | 'checkout'): Promise<DemoOrder> {
  return post('/orders', { kind });
}

/** A sign-in token for `<otp-verify>`. */
export async function otpToken(): Promise<string> {
  return (await post<{ token: string }>('/otp-tokens')).token;
}

/** Sends the proof to the server, which verifies it with the proxy (once); resolves the masked number. */
export async function signIn(proof: string): Promise<string> {
  return (await post<{ recipient: string }>('/sign-in', { proof })).recipient;
}

/** Formats an amount the way the shop does. */
export function formatAmount(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-GH', { style: 'currency', currency, currencyDisplay: 'code' }).format(amount);
}
