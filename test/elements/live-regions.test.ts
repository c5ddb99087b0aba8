// What a screen reader hears from each element, state by state: what is announced on entering the state (the
// live regions' new words, and the name and description of what the focus moved to), and that while nothing
// changes state no live region changes more than once in 10 s (a countdown is not read out every second).
// Ten seconds of each state pass on a fake clock, not in real time.
import { expect, fixture, html } from '@open-wc/testing';
import '../../src/elements/checkout-button/index.js';
import '../../src/elements/otp-verify/index.js';
import '../../src/elements/pay-by-mobile/index.js';
import { StatusStreamController } from '../../src/elements/shared/status-stream.js';
import { FakeProxy, account, checkout, checkoutCreated, fakeToken, hang, json, order, otpSent, payment, problem } from './fake-proxy.js';
import { part, typeInto } from './helpers.js';

type Stateful = HTMLElement & { state: string; updateComplete: Promise<unknown> };

/** The page's own timer, kept before any fake clock: waits for a condition in real time, at most 4 s. */
const realSetTimeout = window.setTimeout.bind(window);
async function until(condition: () => boolean, what: () => string) {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 4_000) throw new Error(what());
    await new Promise((r) => realSetTimeout(r, 10));
  }
}

/** The politeness a change under `node` is said with: its nearest live region's (a timer's is off). */
function liveRegionOf(node: Node, root: ShadowRoot): HTMLElement | null {
  for (let el = node instanceof HTMLElement ? node : node.parentElement; el && el.getRootNode() == root; el = el.parentElement) {
    const live = el.getAttribute('aria-live') ?? { status: 'polite', alert: 'assertive', timer: 'off', marquee: 'off', log: 'polite' }[el.getAttribute('role') ?? ''];
    if (live) return live == 'off' ? null : el;
  }
  return null;
}

/** Listens to an element's live regions: each change of a region's words, with the fake clock's time. */
function listen(el: Element, now: () => number) {
  const root = el.shadowRoot!;
  const said = new Map<HTMLElement, string>();
  for (const region of root.querySelectorAll<HTMLElement>('[aria-live],[role=status],[role=alert]')) said.set(region, words(region));
  const changes: { region: string; words: string; at: number }[] = [];
  const observer = new MutationObserver((records) => {
    const touched = new Set(records.map((r) => liveRegionOf(r.target, root)).filter((r): r is HTMLElement => !!r));
    for (const region of touched) {
      if (said.get(region) == words(region)) continue;
      said.set(region, words(region));
      changes.push({ region: region.getAttribute('part') ?? region.localName, words: words(region), at: now() });
    }
  });
  observer.observe(root, { subtree: true, childList: true, characterData: true });
  return { changes, stop: () => observer.disconnect() };
}

const words = (el: Element) => el.textContent!.replace(/\s+/g, ' ').trim();

/** What the focus landing in `host` is heard as: its name, then its description (`aria-describedby`). */
function focusHeard(host: Element): string {
  const el = host.shadowRoot!.activeElement as HTMLElement | null;
  // A control disabled while it holds the focus loses it at the browser's next rendering step (the focus
  // fixup rule), so it is not heard; whether that step has run yet when this looks depends on the machine.
  if (!el || el.matches(':disabled')) return '';
  const root = host.shadowRoot!;
  const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
  const name = el.getAttribute('aria-label') ?? (el instanceof HTMLInputElement ? words(el.labels?.[0] ?? el) : words(el));
  return [name, ...ids.map((id) => words(root.getElementById(id) ?? document.createElement('i')))].filter(Boolean).join(' | ');
}

/** A clock the test moves: `Date.now` and the timer functions, until `restore`. */
function fakeClock() {
  const w = window;
  const real = { now: Date.now, setTimeout: w.setTimeout.bind(w), clearTimeout: w.clearTimeout.bind(w), setInterval: w.setInterval.bind(w), clearInterval: w.clearInterval.bind(w) };
  let now = Date.now();
  let next = 1e7;
  const timers = new Map<number, { at: number; fn: () => void; every?: number }>();
  const add = (fn: () => void, ms = 0, every?: number) => (timers.set(++next, { at: now + Math.max(0, ms), fn, every }), next);
  Object.assign(window, {
    setTimeout: add,
    setInterval: (fn: () => void, ms: number) => add(fn, ms, Math.max(1, ms)),
    clearTimeout: (id: number) => timers.delete(id),
    clearInterval: (id: number) => timers.delete(id),
  });
  Date.now = () => now;
  const settle = () => new Promise((r) => real.setTimeout(r, 5));
  return {
    now: () => now,
    /** Moves `ms` on, firing every timer due on the way, each at its time, letting the page settle after each. */
    async tick(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        const [id, t] = due;
        now = t.at;
        if (t.every) t.at += t.every;
        else timers.delete(id);
        t.fn();
        await settle();
      }
      now = end;
      await settle();
    },
    restore() {
      Object.assign(window, { setTimeout: real.setTimeout, clearTimeout: real.clearTimeout, setInterval: real.setInterval, clearInterval: real.clearInterval });
      Date.now = real.now;
    },
  };
}

interface Scenario {
  state: string;
  /** Takes the element, mounted and past its first read, to the step before `enter`. */
  before?: (el: Stateful, proxy: FakeProxy) => Promise<unknown>;
  /** The step into the state (the proxy already set to answer it). */
  enter: (el: Stateful, proxy: FakeProxy) => unknown;
  /** What is announced on entering: live regions' words and the focus, each matched in order. */
  heard: RegExp[];
}

/**
 * For each scenario: enters the state, checks what was heard, then lets 10 s pass on the fake clock and checks
 * no live region changed more than once while the element stayed in the state.
 */
function scenarios(name: string, mount: () => Promise<Stateful>, setUp: (proxy: FakeProxy) => void, list: Scenario[]) {
  describe(`${name}: what a screen reader hears`, () => {
    let proxy: FakeProxy;
    const defaults = StatusStreamController.defaults;
    beforeEach(() => {
      StatusStreamController.defaults = { ...defaults, baseDelay: 10, maxDelay: 40, pollInterval: 20, heartbeat: 60_000 };
      proxy = new FakeProxy();
      setUp(proxy);
    });
    afterEach(() => {
      StatusStreamController.defaults = defaults;
      proxy.restore();
    });

    for (const s of list) {
      it(`${s.state}: announced on entering, and no live region changes more than once in 10 s`, async () => {
        const el = await mount();
        await s.before?.(el, proxy);
        await el.updateComplete;
        const clock = fakeClock();
        try {
          const heard = listen(el, clock.now);
          const focusBefore = el.shadowRoot!.activeElement;
          await s.enter(el, proxy);
          await until(() => el.state == s.state, () => `state ${s.state} (still ${el.state})`);
          await el.updateComplete;
          await clock.tick(0);
          // Each state's way in is said too (what was under way: "Finding the account…"), then the state's words.
          const announced = [...heard.changes.map((c) => c.words), ...(el.shadowRoot!.activeElement != focusBefore ? [focusHeard(el)] : [])].filter(Boolean);
          expect(announced.length, `something is announced on entering ${s.state}: ${JSON.stringify(announced)}`).to.equal(s.heard.length);
          s.heard.forEach((re, i) => expect(announced[i]).to.match(re));

          heard.changes.length = 0;
          for (let second = 0; second < 10; second++) await clock.tick(1_000);
          expect(el.state, 'nothing changed state').to.equal(s.state);
          for (const region of new Set(heard.changes.map((c) => c.region))) {
            const changes = heard.changes.filter((c) => c.region == region);
            expect(changes.length, `${region} changed ${JSON.stringify(changes)} in 10 s`).to.be.at.most(1);
          }
          heard.stop();
        } finally {
          clock.restore();
        }
        await expect(el).to.be.accessible();
      });
    }
  });
}

// ---- <pay-by-mobile> ----------------------------------------------------------------------------------

const PAY_TOKEN = fakeToken({ scope: 'payment', amount: 12.5, referenceNo: 'ORDER-123', narration: 'Order 123' });
const payMount = async () => {
  // The form is drawn at once; the order is read meanwhile (a fake proxy answers it at once).
  return fixture<Stateful>(html`<pay-by-mobile token=${PAY_TOKEN}></pay-by-mobile>`);
};
/** Presses a part as a person does: the focus goes there first. */
const press = (el: Element, name: string) => (part(el, name)!.focus(), part(el, name)!.click());
const toConfirm = async (el: Stateful) => {
  typeInto(part<HTMLInputElement>(el, 'phone-input')!, '024 000 0001');
  press(el, 'continue-button');
  await until(() => el.state == 'confirm', () => `confirm (still ${el.state})`);
};
const toPending = async (el: Stateful, proxy: FakeProxy) => {
  await toConfirm(el);
  press(el, 'confirm-button');
  await until(() => el.state == 'pending' && proxy.streams.length > 0, () => `pending (still ${el.state})`);
};
const streamSays = (status: object) => (_: Stateful, proxy: FakeProxy) => proxy.streams.at(-1)!.status(status);

scenarios(
  '<pay-by-mobile>',
  payMount,
  (proxy) => {
    proxy.on('GET', '/order', order({ chargeEstimate: { charge: 0.13, totalAmount: 12.63 } }));
    proxy.on('POST', '/accounts/lookup', account({ accountName: 'YAW ASANTE', network: 'MTN' }));
    proxy.on('POST', '/payments', () => json(payment(), 202));
    proxy.stream(/^\/payments\/[^/]+\/events$/);
  },
  [
    { state: 'idle', before: async (el) => toConfirm(el), enter: (el) => press(el, 'change-button'), heard: [/^Mobile money number$/] },
    {
      state: 'looking-up',
      before: async (el, proxy) => proxy.on('POST', '/accounts/lookup', hang),
      enter: (el) => (typeInto(part<HTMLInputElement>(el, 'phone-input')!, '024 000 0001'), part(el, 'continue-button')!.click()),
      heard: [/^Finding the account…$/],
    },
    {
      state: 'confirm',
      enter: toConfirm,
      // The focus on Pay: its name, and the account holder, network and amount with the charge as its description.
      heard: [/^Finding the account…$/, /^Pay about GHS 12\.63 \| Pay about GHS 12\.63 \(GHS 12\.50 \+ about GHS 0\.13 network charge\) from YAW ASANTE on MTN\?$/],
    },
    { state: 'paying', before: async (el, proxy) => (proxy.on('POST', '/payments', hang), toConfirm(el)), enter: (el) => press(el, 'confirm-button'), heard: [/^Sending the request…$/] },
    { state: 'pending', before: toConfirm, enter: (el) => press(el, 'confirm-button'), heard: [/^Sending the request…$/, /^Approve GHS 12\.50 on your phone\.$/, /^Check again$/] },
    {
      state: 'unknown',
      before: async (el, proxy) => (proxy.on('POST', '/payments', () => json(payment({ status: 'UNKNOWN' }), 202)), toConfirm(el)),
      enter: (el) => press(el, 'confirm-button'),
      heard: [/^Sending the request…$/, /^The provider is confirming this payment/, /^The provider is confirming this payment/],
    },
    { state: 'completed', before: toPending, enter: streamSays(payment({ status: 'COMPLETED' })), heard: [/^Payment received\. Thank you!$/, /^Payment received/] },
    {
      state: 'failed',
      before: toPending,
      enter: streamSays(payment({ status: 'FAILED', failureCode: 'INSUFFICIENT_FUNDS' })),
      heard: [/^Not enough money in the account\.$/, /^Try again$/],
    },
    { state: 'cancelled', before: toPending, enter: streamSays(payment({ status: 'CANCELLED' })), heard: [/^Payment declined on the phone\.$/, /^Try again$/] },
    { state: 'timed-out', before: toPending, enter: streamSays(payment({ status: 'TIMED_OUT' })), heard: [/^No answer from the phone yet\./, /^Check again$/] },
    {
      state: 'error',
      before: async (el, proxy) => proxy.on('POST', '/accounts/lookup', () => problem(404, 'ACCOUNT_NOT_FOUND')),
      enter: (el) => (typeInto(part<HTMLInputElement>(el, 'phone-input')!, '024 000 0001'), press(el, 'continue-button')),
      heard: [/^Finding the account…$/, /^No mobile money account on this number\.$/, /^Mobile money number \| No mobile money account/],
    },
  ],
);

// ---- <otp-verify> -------------------------------------------------------------------------------------

const OTP_TOKEN = fakeToken({ scope: 'otp', purpose: 'sign-in' });
const PROOF = fakeToken({ scope: 'otp-proof', sub: '233240000001' });
const otpMount = () => fixture<Stateful>(html`<otp-verify token=${OTP_TOKEN} .deliveryPoll=${60_000}></otp-verify>`);
const send = (el: Stateful) => (typeInto(part<HTMLInputElement>(el, 'phone-input')!, '024 000 0001'), press(el, 'send-button'));
const toSent = async (el: Stateful) => (send(el), await until(() => el.state == 'sent', () => `sent (still ${el.state})`), await el.updateComplete);
const typeCode = (el: Stateful) => {
  const input = part<HTMLInputElement>(el, 'code-input')!;
  input.focus();
  typeInto(input, '123456');
};

scenarios(
  '<otp-verify>',
  otpMount,
  (proxy) => {
    proxy.on('POST', '/otp/send', otpSent());
    proxy.on('POST', '/otp/verify', { verified: true, proof: PROOF });
    proxy.on('GET', /^\/otp\/.+\/delivery$/, { deliveryStatus: 'ACCEPTED' });
  },
  [
    { state: 'idle', before: toSent, enter: (el) => press(el, 'change-button'), heard: [/^Phone number$/] },
    { state: 'sending', before: async (el, proxy) => proxy.on('POST', '/otp/send', hang), enter: send, heard: [/^Sending the code…$/] },
    { state: 'sent', enter: send, heard: [/^Sending the code…$/, /^We sent a code by SMS to 233\s24\s\*\*\*\s\*\*01\.$/, /^Code from the SMS$/] },
    { state: 'verifying', before: async (el, proxy) => (proxy.on('POST', '/otp/verify', hang), toSent(el)), enter: typeCode, heard: [/^Checking the code…$/] },
    { state: 'verified', before: toSent, enter: typeCode, heard: [/^Checking the code…$/, /^Number 233\s24\s\*\*\*\s\*\*01 verified\.$/, /^Number .* verified\.$/] },
    {
      state: 'wrong-code',
      before: async (el, proxy) => (proxy.on('POST', '/otp/verify', () => problem(400, 'OTP_INVALID', { attemptsLeft: 2 })), toSent(el)),
      enter: typeCode,
      heard: [/^Checking the code…$/, /^We sent a code by SMS/, /^That code is not right\. 2 tries left\.$/],
    },
    {
      state: 'expired',
      before: async (el, proxy) => (proxy.on('POST', '/otp/verify', () => problem(410, 'OTP_EXPIRED')), toSent(el)),
      enter: typeCode,
      heard: [/^Checking the code…$/, /^We sent a code by SMS/, /^This code has expired\. Ask for a new one\.$/],
    },
    {
      // The code's tries are spent: a new code, after the resend countdown (said once, counted down on screen).
      state: 'locked',
      before: async (el, proxy) => (proxy.on('POST', '/otp/verify', () => problem(400, 'OTP_INVALID', { attemptsLeft: 0 })), toSent(el)),
      enter: typeCode,
      heard: [/^Checking the code…$/, /^We sent a code by SMS/, /^That code is not right\. No tries left\. Send a new code in \d:\d\d\.$/],
    },
    {
      state: 'rate-limited',
      before: async (el, proxy) => proxy.on('POST', '/otp/send', () => problem(429, 'RATE_LIMITED', { retryAfter: 53 })),
      enter: send,
      heard: [/^Sending the code…$/, /^Too many attempts\. Try again in 53 s\.$/, /^Phone number \| Too many attempts/],
    },
    { state: 'network-error', before: async (el, proxy) => proxy.on('POST', '/otp/send', () => Promise.reject(new TypeError('Failed to fetch'))), enter: send, heard: [/^Sending the code…$/, /^No connection\./, /^Phone number \| No connection/] },
    {
      state: 'error',
      before: async (el, proxy) => proxy.on('POST', '/otp/send', () => problem(400, 'INVALID_PHONE_NUMBER')),
      enter: send,
      heard: [/^Sending the code…$/, /^Enter a Ghanaian mobile number/, /^Phone number \| Enter a Ghanaian/],
    },
  ],
);

// ---- <checkout-button> --------------------------------------------------------------------------------

const CHECKOUT_TOKEN = fakeToken({ scope: 'checkout', reference: 'ORDER-9', amount: 50 });
const checkoutMount = async () => {
  const el = await fixture<Stateful & { navigate: (url: string) => void }>(html`<checkout-button token=${CHECKOUT_TOKEN}></checkout-button>`);
  el.navigate = () => undefined;
  return el;
};
const open = async (el: Stateful, proxy: FakeProxy) => (press(el, 'button'), await until(() => el.state == 'open' && proxy.streams.length > 0, () => `open (still ${el.state})`));
const checkoutSays = (status: string) => (_: Stateful, proxy: FakeProxy) => proxy.streams.at(-1)!.status(checkout({ status: status as 'completed' }));

scenarios(
  '<checkout-button>',
  checkoutMount,
  (proxy) => {
    proxy.on('POST', '/checkouts', () => json(checkoutCreated(), 201));
    proxy.stream(/^\/checkouts\/[^/]+\/events$/);
  },
  [
    {
      state: 'idle',
      before: open,
      enter: (el) => ((el as unknown as { token: string }).token = fakeToken({ scope: 'checkout', reference: 'ORDER-10', amount: 50 })),
      heard: [],
    },
    { state: 'creating', before: async (el, proxy) => proxy.on('POST', '/checkouts', hang), enter: (el) => press(el, 'button'), heard: [/^Opening the checkout…$/] },
    { state: 'open', enter: (el) => press(el, 'button'), heard: [/^Opening the checkout…$/, /^Finish paying on the checkout page\.$/, /^Pay now$/] },
    { state: 'completed', before: open, enter: checkoutSays('completed'), heard: [/^Payment received\. Thank you!$/] },
    { state: 'failed', before: open, enter: checkoutSays('failed'), heard: [/^The payment did not go through\.$/] },
    { state: 'cancelled', before: open, enter: checkoutSays('cancelled'), heard: [/^The payment was cancelled\.$/] },
    { state: 'expired', before: open, enter: checkoutSays('expired'), heard: [/^The checkout expired\. Start again\.$/] },
    { state: 'error', before: async (el, proxy) => proxy.on('POST', '/checkouts', () => problem(503, 'UPSTREAM_UNAVAILABLE')), enter: (el) => press(el, 'button'), heard: [/^Opening the checkout…$/, /^The service is busy\./, /^Pay now \| The service is busy\./] },
  ],
);
