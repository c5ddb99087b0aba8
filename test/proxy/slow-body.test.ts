/**
 * A request body that trickles in is cut off at the body deadline (finding 14): answered 408 in the error
 * shape and the connection closed, instead of holding a socket for Node's default 300 s.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOUNT, startHarness, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { bodyTimeoutMs: 300 } });
});
afterAll(() => h?.close());

/** Sends the head and a first byte of a 40-byte body, one more byte every 100 ms; resolves with all it got back. */
function trickle(path: string, token: string): Promise<{ text: string; ms: number }> {
  const url = new URL(h.origin);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: Date.now() - started });
    });
    socket.on('connect', () => {
      socket.write(
        `POST ${MOUNT}${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nContent-Length: 40\r\n\r\n{`,
      );
      timer = setInterval(() => socket.writable && socket.write(' '), 100);
    });
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}

describe('slow request bodies', () => {
  it('answers 408 in the error shape at the body deadline and closes the connection', async () => {
    const { text, ms } = await trickle('/payments', await h.mintPayment());
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"error":"INVALID_INPUT"');
    expect(text).toContain('took too long');
    expect(ms).toBeLessThan(3_000);
  });

  it('does the same on the provider callback route', async () => {
    const { text } = await trickle('/callbacks/payments/abc', '');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });
});
