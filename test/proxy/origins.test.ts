// A refused origin explains itself: a page served by Vite with `server.proxy` and `changeOrigin: true` sends
// `Origin: http://localhost:5173` with its Host rewritten to the proxy's, so it is not same-origin there. The
// server's log must say what was refused, what is allowed and how to fix it; the page hears its own origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const ALLOWED = 'https://shop.example';
const VITE_PAGE = 'http://localhost:5173';

describe('originPolicy refusals', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { allowedOrigins: [ALLOWED] } });
  });
  afterAll(() => h.close());

  const refusals = () => h.logs.entries().filter((e) => typeof e['fix'] == 'string');

  it('logs the refused origin, the proxy’s own, the allowed list and the fix for a page behind a dev proxy', async () => {
    const res = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp(), headers: { origin: VITE_PAGE } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'ORIGIN_NOT_ALLOWED' });
    expect((res.body as { message: string }).message).toContain(VITE_PAGE);
    expect(res.text).not.toContain(ALLOWED);
    // Readable by that page (the browser would hide it otherwise), which learns nothing else.
    expect(res.headers.get('access-control-allow-origin')).toBe(VITE_PAGE);
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual(['access-control-allow-origin']);

    const [entry] = refusals();
    expect(entry).toMatchObject({ level: 40, origin: VITE_PAGE, ownOrigin: h.origin, allowedOrigins: [ALLOWED] });
    expect(entry!['msg']).toBe(`origin not allowed: ${VITE_PAGE} is neither this server's own origin (${h.origin}) nor in allowedOrigins`);
    expect(entry!['fix']).toContain(`add ${VITE_PAGE} to PROXY_ALLOWED_ORIGINS`);
    expect(entry!['fix']).toContain('changeOrigin: false');
  });

  it('says why an unsafe cross-site request without a listed origin was refused', async () => {
    h.logs.lines.length = 0;
    const res = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp(), headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(403);
    const [entry] = refusals();
    expect(entry).toMatchObject({ origin: null, secFetchSite: 'cross-site', allowedOrigins: [ALLOWED] });
    expect(entry!['msg']).toBe('cross-site POST refused: Sec-Fetch-Site is cross-site and the request has no Origin');
  });

  it("keeps a refused origin's preflight refused, so that a call with a token never leaves its page", async () => {
    const res = await h.request('OPTIONS', '/payments', {
      headers: { origin: VITE_PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBe(403);
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('logs nothing of the kind for an allowed origin', async () => {
    h.logs.lines.length = 0;
    const res = await h.post('/otp/send', { recipient: '0240000001' }, { token: await h.mintOtp(), headers: { origin: ALLOWED } });
    expect(res.status).toBe(200);
    expect(refusals()).toEqual([]);
  });
});
