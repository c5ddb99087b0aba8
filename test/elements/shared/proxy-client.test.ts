import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import '../../../src/elements/checkout-button/index.js';
import type { CheckoutButton } from '../../../src/elements/checkout-button/index.js';
import { ProxyClient, ProxyClientError } from '../../../src/elements/shared/proxy-client.js';
import { FakeProxy, hang, json, offline, problem } from '../fake-proxy.js';
import { TestHost } from './host.js';

describe('ProxyClient', () => {
  let proxy: FakeProxy;
  let host: TestHost;
  let client: ProxyClient;
  beforeEach(() => {
    proxy = new FakeProxy();
    host = new TestHost();
    client = new ProxyClient(host);
  });
  afterEach(() => proxy.restore());

  it('posts JSON to the mount path with the token as a Bearer credential', async () => {
    proxy.on('POST', '/shop/me/otp/send', { otpId: 'o1' });
    host.proxy = '/shop/me/'; // a trailing slash is fine
    expect(await client.post('/otp/send', { recipient: '0240000001' })).to.deep.equal({ otpId: 'o1' });
    const [req] = proxy.requests;
    expect(req!.path).to.equal('/shop/me/otp/send');
    expect(req!.headers.get('authorization')).to.equal('Bearer tok_123');
    expect(req!.headers.get('content-type')).to.equal('application/json');
    expect(req!.body).to.deep.equal({ recipient: '0240000001' });
  });

  it('turns a protocol error into a ProxyClientError with code, details, status and retryability', async () => {
    proxy.on('POST', '/otp/verify', () => problem(400, 'OTP_INVALID', { attemptsLeft: 2 }));
    proxy.on('GET', '/health', () => problem(429, 'RATE_LIMITED', { retryAfter: 30 }));
    const wrong = await client.post<never>('/otp/verify', {}).catch((e: ProxyClientError) => e);
    expect(wrong).to.be.instanceOf(ProxyClientError);
    expect(wrong).to.include({ code: 'OTP_INVALID', status: 400, retryable: false, message: 'server text: OTP_INVALID' });
    expect(wrong.details).to.deep.equal({ attemptsLeft: 2 });
    const limited = await client.get('/health').catch((e: ProxyClientError) => e);
    expect(limited).to.include({ code: 'RATE_LIMITED', status: 429, retryable: true });
  });

  it('classifies a body that is not the protocol shape by its status', async () => {
    proxy.on('GET', '/a', () => new Response('<html>Bad gateway</html>', { status: 502 }));
    proxy.on('GET', '/b', () => new Response('nope', { status: 400 }));
    expect(await client.get('/a').catch((e: ProxyClientError) => e)).to.include({ code: 'UPSTREAM_UNAVAILABLE', status: 502, retryable: true });
    expect(await client.get('/b').catch((e: ProxyClientError) => e)).to.include({ code: 'UPSTREAM_ERROR', status: 400, retryable: false });
  });

  /** Runs `body` with console.warn recorded; the lines it warned. */
  async function warned(body: () => Promise<unknown>) {
    const lines: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void lines.push(args.join(' '));
    try {
      await body();
    } finally {
      console.warn = warn;
    }
    return lines;
  }

  it('warns in the console of a refused origin (403 ORIGIN_NOT_ALLOWED): the page origin and the fix', async () => {
    proxy.on('POST', '/payments', () => problem(403, 'ORIGIN_NOT_ALLOWED'));
    proxy.on('POST', '/otp/verify', () => problem(400, 'OTP_INVALID', { attemptsLeft: 2 }));
    const lines = await warned(async () => {
      expect(await client.post('/payments', {}).catch((e: ProxyClientError) => e)).to.include({ code: 'ORIGIN_NOT_ALLOWED', status: 403 });
      await client.post('/otp/verify', {}).catch(() => undefined);
    });
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include(location.origin).and.include('ORIGIN_NOT_ALLOWED').and.include('PROXY_ALLOWED_ORIGINS').and.include('changeOrigin');
  });

  it('<checkout-button> refused for its origin leaves the hint in the console, its generic sentence on the page', async () => {
    proxy.on('POST', '/checkouts', () => problem(403, 'ORIGIN_NOT_ALLOWED'));
    let el: CheckoutButton | undefined;
    const lines = await warned(async () => {
      el = await fixture<CheckoutButton>(html`<checkout-button token="t"></checkout-button>`);
      el.shadowRoot!.querySelector<HTMLElement>('[part~="button"]')!.click();
      await waitUntil(() => proxy.calls('POST', '/checkouts').length > 0 && el!.state == 'error', 'checkout refused');
    });
    expect(lines.join('\n')).to.include(`origin ${location.origin}`).and.include('PROXY_ALLOWED_ORIGINS');
    expect(el!.shadowRoot!.querySelector('[part~="error-message"]')?.textContent?.trim()).to.be.ok;
  });

  it('reports a network failure as NETWORK, retryable', async () => {
    proxy.on('GET', '/health', offline);
    const e = await client.get('/health').catch((e: ProxyClientError) => e);
    expect(e).to.be.instanceOf(ProxyClientError);
    expect(e).to.include({ code: 'NETWORK', status: 0, retryable: true });
  });

  it('tells a refused cross-origin call from no connection: after a failed call, a GET of its URL without a token reads the refusal', async () => {
    // What a page on an origin the proxy does not allow sees: its preflight refused, the call fails as the
    // network would; a simple GET needs no preflight, and the proxy lets the page read its 403.
    proxy.on('POST', '/payments', offline);
    proxy.on('GET', '/payments', () => problem(403, 'ORIGIN_NOT_ALLOWED'));
    let e: unknown;
    const lines = await warned(async () => void (e = await client.post('/payments', {}).catch((e: ProxyClientError) => e)));
    expect(e).to.include({ code: 'ORIGIN_NOT_ALLOWED', status: 403, retryable: false });
    expect(lines.join('\n')).to.include(location.origin).and.include('PROXY_ALLOWED_ORIGINS');
    const [probe] = proxy.calls('GET', '/payments');
    expect(probe!.headers.get('authorization')).to.equal(null);

    // The probe answered, but as an allowed origin is (401 without a token), or failed too: the network failed.
    for (const answer of [() => problem(401, 'TOKEN_INVALID'), offline]) {
      proxy.on('GET', '/payments', answer);
      expect(await client.post('/payments', {}).catch((e: ProxyClientError) => e)).to.include({ code: 'NETWORK', retryable: true });
    }
  });

  it('aborts a call by its own signal, and every call when the host disconnects', async () => {
    proxy.on('GET', '/slow', hang);
    const own = new AbortController();
    const first = client.get<never>('/slow', own.signal).catch((e: ProxyClientError) => e);
    const second = client.get<never>('/slow').catch((e: ProxyClientError) => e);
    own.abort();
    expect((await first).name).to.equal('AbortError');
    host.disconnect();
    expect((await second).name).to.equal('AbortError');
    // Still usable afterwards.
    proxy.on('GET', '/slow', { ok: true });
    expect(await client.get('/slow')).to.deep.equal({ ok: true });
  });

  it("measures this device's clock against the proxy's Date header, ignoring the header's rounding", async () => {
    let date = new Date(Date.now() + 120_000).toUTCString();
    proxy.on('GET', '/health', () => new Response('{}', { headers: { date } }));
    await client.get('/health');
    expect(client.skew).to.be.within(118_000, 121_000);
    date = new Date().toUTCString();
    await client.get('/health');
    expect(client.skew, 'whole seconds only: no skew').to.equal(0);
  });
});
