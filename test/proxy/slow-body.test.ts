/**
 * A request body that trickles in is cut off at the body deadline (finding 14, and issue 19's finding 10):
 * answered 408 in the error shape and the connection closed when a parser is reading it; and a body nobody
 * reads (a refused request, a GET that sends one) no longer holds the connection for Node's 300 s while the
 * rest trickles in. The deadline here is 300 ms; the sockets go on sending a byte every 100 ms for as long
 * as they are open, so only the proxy's timer can end them.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOUNT, startHarness, type Harness } from './helpers.js';

const DEADLINE_MS = 300;
/** Far below Node's own 300 s and far above the timer's lateness on a busy machine. */
const CUT_WITHIN_MS = 3_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { bodyTimeoutMs: DEADLINE_MS, allowedOrigins: ['https://shop.example'] } });
});
afterAll(() => h?.close());

/**
 * Sends `head` (request line and headers, a 40-byte body announced) and a first byte of the body, then one
 * more byte every 100 ms; resolves when the proxy closes the connection, with all it got back and when.
 */
function trickle(head: string): Promise<{ text: string; ms: number }> {
  const url = new URL(h.origin);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: Date.now() - started });
    });
    socket.on('connect', () => {
      socket.write(`${head}Host: ${url.host}\r\nContent-Length: 40\r\n\r\n{`);
      timer = setInterval(() => socket.writable && socket.write(' '), 100);
    });
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

const post = (path: string, headers: string) => `POST ${MOUNT}${path} HTTP/1.1\r\n${headers}`;

describe('slow request bodies', () => {
  it('answers 408 in the error shape at the body deadline and closes the connection', async () => {
    const token = await h.mintPayment();
    const { text, ms } = await trickle(post('/payments', `Content-Type: application/json\r\nAuthorization: Bearer ${token}\r\n`));
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"error":"INVALID_INPUT"');
    expect(text).toContain('took too long');
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(ms).toBeLessThan(CUT_WITHIN_MS);
  });

  it('does the same on the provider callback route', async () => {
    const { text, ms } = await trickle(post('/callbacks/payments/abc', ''));
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeLessThan(CUT_WITHIN_MS);
  });

  it('closes at the deadline a connection whose body nobody reads: a refused type, a refused origin, a GET with a body', async () => {
    const token = await h.mintPayment();
    const [unsupported, foreign, get] = await Promise.all([
      trickle(post('/payments', `Content-Type: text/plain\r\nAuthorization: Bearer ${token}\r\n`)),
      trickle(post('/payments', `Content-Type: application/json\r\nOrigin: https://evil.example\r\n`)),
      trickle(`GET ${MOUNT}/health HTTP/1.1\r\n`),
    ]);
    // Each is answered at once, as before; then the trickle is not waited for past the deadline.
    expect(unsupported.text).toMatch(/^HTTP\/1\.1 415 /);
    expect(foreign.text).toMatch(/^HTTP\/1\.1 403 /);
    expect(get.text).toMatch(/^HTTP\/1\.1 200 /);
    for (const { ms } of [unsupported, foreign, get]) {
      expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS);
      expect(ms).toBeLessThan(CUT_WITHIN_MS);
    }
  });
});
