import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const ALLOWED = 'https://shop.example';

describe('proxy hardening', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness({ config: { allowedOrigins: [ALLOWED] } });
  });
  afterAll(async () => {
    await h.close();
  });

  /** A lookup: a POST route that needs a token and a JSON body. */
  const lookup = async (headers: Record<string, string> = {}, body = JSON.stringify({ msisdn: '0240000001' })) =>
    h.request('POST', '/accounts/lookup', {
      body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${(token = await h.mintPayment())}`, ...headers },
    });

  describe('bodies', () => {
    it('accepts JSON, with or without a charset', async () => {
      expect((await lookup()).status).toBe(200);
      expect((await lookup({ 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    });

    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
      it(`refuses ${contentType} with 415`, async () => {
        const res = await lookup({ 'content-type': contentType }, 'msisdn=0240000001');
        expect(res.status).toBe(415);
        expect(res.body).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
      });
    }

    it('refuses a POST without a content type with 415', async () => {
      const res = await h.request('POST', '/otp/send', { body: '{}', headers: { authorization: `Bearer ${await h.mintOtp()}` } });
      expect(res.status).toBe(415);
    });

    it('refuses a body over 10 kB with 413', async () => {
      const res = await lookup({}, JSON.stringify({ msisdn: '0240000001', pad: 'x'.repeat(11 * 1024) }));
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
    });

    it('refuses invalid JSON with 400 INVALID_INPUT', async () => {
      const res = await lookup({}, '{"msisdn": ');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'INVALID_INPUT', details: { fields: [{ path: '(body)' }] } });
    });

    it('refuses a JSON body that is not an object', async () => {
      expect((await lookup({}, '"0240000001"')).body.error).toBe('INVALID_INPUT');
      expect((await lookup({}, '[1]')).body.error).toBe('INVALID_INPUT');
    });

    it('refuses unknown fields, naming them', async () => {
      const res = await lookup({}, JSON.stringify({ msisdn: '0240000001', admin: true }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'INVALID_INPUT',
        message: expect.any(String),
        details: { fields: [{ path: 'admin', message: 'is not allowed' }] },
      });
    });

    it('lets provider callbacks through with any body type and no origin rule, still capped at 10 kB', async () => {
      const hint = await h.request('POST', '/callbacks/payments/some-id', {
        body: 'status=COMPLETED',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      expect([403, 415]).not.toContain(hint.status);
      const big = await h.request('POST', '/callbacks/payments/some-id', {
        body: 'x'.repeat(11 * 1024),
        headers: { 'content-type': 'text/plain' },
      });
      expect(big.status).toBe(413);
    });
  });

  describe('origins', () => {
    it('refuses a foreign Origin with 403, on POST and on GET', async () => {
      const post = await lookup({ origin: 'https://evil.example' });
      expect(post.status).toBe(403);
      expect(post.body).toMatchObject({ error: 'ORIGIN_NOT_ALLOWED' });
      const get = await h.request('GET', '/health', { headers: { origin: 'https://evil.example' } });
      expect(get.status).toBe(403);
      // The refused page may read the refusal (so its element can say why), and nothing more.
      for (const res of [post, get]) {
        expect(res.headers.get('access-control-allow-origin')).toBe('https://evil.example');
        expect(res.headers.get('access-control-expose-headers')).toBeNull();
        expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      }
    });

    it('refuses a look-alike of an allowed origin', async () => {
      for (const origin of ['https://shop.example.evil.com', 'http://shop.example', 'https://shop.example:8443', 'null']) {
        expect((await lookup({ origin })).status, origin).toBe(403);
      }
    });

    it('accepts an allowlisted origin with CORS headers', async () => {
      const res = await lookup({ origin: ALLOWED, 'sec-fetch-site': 'cross-site' });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(res.headers.get('vary')).toMatch(/Origin/);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('accepts the proxy’s own origin without CORS headers', async () => {
      const res = await lookup({ origin: h.origin, 'sec-fetch-site': 'same-origin' });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('accepts a request without Origin (server to server)', async () => {
      expect((await lookup()).status).toBe(200);
    });

    it('refuses an unsafe cross-site request that is not allowlisted, even without Origin', async () => {
      const res = await lookup({ 'sec-fetch-site': 'cross-site' });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('ORIGIN_NOT_ALLOWED');
      // A safe method is fine cross-site.
      expect((await h.request('GET', '/health', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
    });

    it('answers a preflight from an allowlisted origin with 204', async () => {
      const res = await h.request('OPTIONS', '/otp/send', {
        headers: { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
      expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Last-Event-ID');
    });

    it('refuses a preflight from a foreign origin', async () => {
      const res = await h.request('OPTIONS', '/otp/send', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('caching', () => {
    it('marks every answer no-store, the proof of a verified code included, and sends no ETag', async () => {
      const otpToken = await h.mintOtp();
      const sent = await h.post('/otp/send', { recipient: '0240000007' }, { token: otpToken });
      const verified = await h.post('/otp/verify', { recipient: '0240000007', code: h.lastCode('233240000007') }, { token: otpToken });
      expect(verified.body).toMatchObject({ verified: true, proof: expect.any(String) });
      const answers = [sent, verified, await lookup(), await h.get('/health'), await h.get('/nothing/here'), await lookup({}, '{')];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 404, 400]);
      for (const answer of answers) {
        expect(answer.headers.get('cache-control')).toBe('no-store');
        expect(answer.headers.get('etag')).toBeNull();
        expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.text));
      }
    });
  });

  describe('errors', () => {
    it('answers an unknown path with a JSON 404', async () => {
      const res = await h.get('/nothing/here');
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.body).toEqual({ error: 'NOT_FOUND', message: expect.any(String), details: {} });
    });

    it('never answers with an HTML page or a stack trace', async () => {
      const res = await lookup({}, '{bad');
      expect(res.text).not.toMatch(/<html|at .*\.ts:\d+/i);
    });

    it('does not log the Authorization header', async () => {
      await lookup();
      expect(h.logs.lines.some((l) => l.includes(token))).toBe(false);
      expect(h.logs.lines.some((l) => l.includes('"statusCode":200'))).toBe(true);
    });
  });
});
