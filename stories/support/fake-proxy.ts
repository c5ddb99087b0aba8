// The merchant's proxy, faked in the page so that the static Storybook needs no server: `window.fetch` answers
// the protocol's paths under the mount. Interception, SSE streams and bodies are the element tests' fake
// (test/elements/fake-proxy.ts); what each story's proxy does is a StoryProxy, one per rendering of a story and
// found by the element's token, so the stories of a docs page, rendered side by side (the first one twice),
// each talk to their own proxy.
import { FakeProxy, json, type FakeRequest } from '../../test/elements/fake-proxy.js';
import { CHECKOUT_VIEW_STATUSES, type CheckoutViewStatus } from '../../src/protocol/codes.js';
import { DEFAULT_PROXY_PATH, PROXY_PATHS } from '../../src/protocol/paths.js';
import type { HealthResponse } from '../../src/protocol/schemas.js';
import { tokenClaims } from '../../src/elements/shared/token.js';
import { StoryProxy, refuse, type FakeProxyOptions, type RouteName } from './story-proxy.js';

const METHODS: Record<RouteName, 'GET' | 'POST'> = {
  otpSend: 'POST',
  otpVerify: 'POST',
  otpDelivery: 'GET',
  accountLookup: 'POST',
  order: 'GET',
  payments: 'POST',
  payment: 'GET',
  paymentEvents: 'GET',
  checkouts: 'POST',
  checkoutStart: 'POST',
  checkout: 'GET',
  checkoutEvents: 'GET',
  paymentCallback: 'POST',
  health: 'GET',
};

/** The token scope each route requires. */
const scopeOf = (route: RouteName) => (route.startsWith('otp') ? 'otp' : route.startsWith('checkout') ? 'checkout' : 'payment');

/** A protocol path, or for a path of an identifier a pattern matching any identifier. */
const pattern = (path: string | ((id: string) => string)) =>
  typeof path == 'string' ? path : new RegExp(`^${path('\0').replace('%00', '[^/]+')}$`);

/** Message the fake hosted checkout page (stories/public/hosted-checkout.html) posts to its opener. */
export const HOSTED_PAGE_MESSAGE = 'merchant-elements:hosted-checkout';

/** By the story's canvas: one proxy per rendering. */
const proxies = new Map<HTMLElement, StoryProxy>();
let installed: FakeProxy | undefined;

/** Installs the fake once per page; requests outside the mount (Storybook's own) go to the network as before. */
export function installFakeProxy(mount = DEFAULT_PROXY_PATH): FakeProxy {
  if (installed) return installed;
  const real = window.fetch.bind(window);
  const fake = new FakeProxy(mount);
  const faked = window.fetch;
  window.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    return url.pathname.startsWith(`${mount}/`) ? faked(input, init) : real(input, init);
  };
  for (const route of Object.keys(METHODS) as RouteName[]) {
    fake.on(METHODS[route], pattern(PROXY_PATHS[route]), (req) => dispatch(route, req));
  }
  window.addEventListener('message', handleHostedPage);
  return (installed = fake);
}

function dispatch(route: RouteName, req: FakeRequest) {
  if (route == 'health') {
    return json({ ok: true, upstream: { circuits: { messaging: 'closed', payment: 'closed', checkout: 'closed' }, store: 'memory', storeOk: true } } satisfies HealthResponse);
  }
  if (route == 'paymentCallback') return new Response(null, { status: 204 });
  const claims = tokenClaims(req.headers.get('authorization')?.replace(/^Bearer /, '') ?? '');
  const story = [...proxies.values()].find((p) => p.claims['jti'] === claims['jti']);
  if (!story || claims['scope'] != scopeOf(route)) return refuse({ error: 'TOKEN_INVALID' });
  if (Number(claims['exp']) * 1000 < Date.now()) return refuse({ error: 'TOKEN_EXPIRED' });
  return story.answer(route, req);
}

/** The customer paid, failed or cancelled on the fake hosted page: that checkout's watchers hear it. */
function handleHostedPage({ origin, data }: MessageEvent) {
  if (origin != location.origin || data?.type != HOSTED_PAGE_MESSAGE) return;
  if (!CHECKOUT_VIEW_STATUSES.includes(data.status)) return;
  for (const p of proxies.values()) if (p.owns(data.checkoutId)) p.settleCheckout(data.status as CheckoutViewStatus, data.checkoutId);
}

/** What the fake needs to know of a story (its context). */
export interface StoryRef {
  canvasElement: HTMLElement;
  parameters: { proxy?: FakeProxyOptions };
}

/**
 * The proxy of a story's rendering, made with its `proxy` parameter on its first render and kept across
 * re-renders (a control changed keeps the element where it is); its `token` goes in the element's `token`.
 */
export function proxyFor({ canvasElement, parameters }: StoryRef): StoryProxy {
  let proxy = proxies.get(canvasElement);
  if (!proxy) proxies.set(canvasElement, (proxy = new StoryProxy(parameters.proxy)));
  return proxy;
}

/** Storybook `beforeEach`: the fake installed, a fresh proxy for each visit of a story, gone when it is left. */
export function withFakeProxy(story: StoryRef) {
  installFakeProxy();
  proxyFor(story);
  return () => {
    proxies.get(story.canvasElement)?.dispose();
    proxies.delete(story.canvasElement);
  };
}
