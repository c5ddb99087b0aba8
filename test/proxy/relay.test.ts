import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentSnapshot } from '../../src/protocol/index.js';
import { backoffDelay } from '../../src/proxy/reconcile/backoff.js';
import { PollerPool } from '../../src/proxy/reconcile/poller-pool.js';
import { formatSseComment, formatSseEvent, LiveStreams, parseLastEventId, type SseStream } from '../../src/proxy/notify/sse.js';
import { StreamLimiter } from '../../src/proxy/notify/stream-limiter.js';
import { startHarness, type Harness } from './helpers.js';
import { eventually, openStream } from './sse-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('backoffDelay', () => {
  const opts = { minIntervalMs: 1_000, maxIntervalMs: 10_000 };

  it('starts at about the minimum and grows to the maximum', () => {
    const mid = () => 0.5; // no jitter
    expect(backoffDelay(0, opts, mid)).toBe(1_000);
    expect(backoffDelay(1, opts, mid)).toBe(1_600);
    expect(backoffDelay(3, opts, mid)).toBeGreaterThan(backoffDelay(2, opts, mid));
    expect(backoffDelay(20, opts, mid)).toBe(10_000);
  });

  it('jitters within ±20 % while the interval grows, and never exceeds the maximum', () => {
    expect(backoffDelay(0, opts, () => 0)).toBe(800);
    expect(backoffDelay(0, opts, () => 0.999999)).toBe(1_200);
    expect(backoffDelay(4, opts, () => 0.999999)).toBe(Math.min(10_000, Math.round(1_000 * 1.6 ** 4 * 1.2)));
    for (let i = 0; i < 200; i++) expect(backoffDelay(50, opts)).toBeLessThanOrEqual(10_000);
  });

  it('waits the maximum itself at the ceiling, so a payment there is read once per interval, not more', () => {
    // Jittered and clipped at the maximum, the waits averaged 9,500 ms: 1.05 reads per 10 s interval.
    for (const r of [0, 0.25, 0.5, 0.999999]) expect(backoffDelay(50, opts, () => r)).toBe(10_000);
    expect(backoffDelay(5, opts, () => 0)).toBe(10_000); // 1.6^5 s is past the ceiling
  });
});

describe('PollerPool', () => {
  it('runs one poller per key however often it is asked for', async () => {
    const pool = new PollerPool({ minIntervalMs: 5, maxIntervalMs: 10 });
    let ticks = 0;
    const tick = async () => (++ticks >= 3 ? ('done' as const) : ('continue' as const));
    expect(pool.ensure('a', tick)).toBe(true);
    for (let i = 0; i < 50; i++) expect(pool.ensure('a', tick)).toBe(false);
    await eventually(() => (pool.has('a') ? undefined : true));
    expect(ticks).toBe(3);
    await pool.close();
  });

  it('reads again when woken during a tick that decided it was done (a reference sent again meanwhile)', async () => {
    // The chaos run found it: a void attempt's poller finishing while the same reference was sent again
    // took the wake-up with it, and the new payment stayed PENDING, never read.
    const pool = new PollerPool({ minIntervalMs: 5, maxIntervalMs: 10 });
    let ticks = 0;
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const tick = async () => {
      ticks++;
      if (ticks === 1) await first; // the old attempt's last tick, still running
      return 'done' as const;
    };
    pool.ensure('a', tick);
    expect(pool.ensure('a', tick)).toBe(false);
    expect(pool.wake('a')).toBe(true);
    release();
    await eventually(() => (pool.has('a') ? undefined : true));
    expect(ticks).toBe(2);
    await pool.close();
  });

  it('polls at once when woken, not at the end of a long interval', async () => {
    const pool = new PollerPool({ minIntervalMs: 60_000, maxIntervalMs: 60_000, minWakeGapMs: 0 });
    let ticks = 0;
    pool.ensure('a', async () => {
      ticks++;
      return 'continue';
    });
    await eventually(() => (ticks === 1 ? true : undefined));
    const started = Date.now();
    expect(pool.wake('a')).toBe(true);
    await eventually(() => (ticks === 2 ? true : undefined), 2_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(pool.wake('nobody')).toBe(false);
    await pool.close();
    expect(pool.size).toBe(0);
  });

  it('keeps polling after a tick throws, and reports it', async () => {
    const errors: string[] = [];
    const pool = new PollerPool({ minIntervalMs: 1, maxIntervalMs: 2, onError: (key) => errors.push(key) });
    let ticks = 0;
    pool.ensure('a', async () => {
      if (++ticks === 1) throw new Error('boom');
      return 'done';
    });
    await eventually(() => (pool.has('a') ? undefined : true));
    expect(ticks).toBe(2);
    expect(errors).toEqual(['a']);
  });
});

describe('SSE wire format', () => {
  it('writes event, id and one data line, and strips line breaks from fields', () => {
    expect(formatSseEvent({ event: 'status', id: 3, data: { a: 'x\ny' } })).toBe('event: status\nid: 3\ndata: {"a":"x\\ny"}\n\n');
    expect(formatSseEvent({ event: 'st\natus', id: '1\r\n2', data: 1 })).toBe('event: status\nid: 12\ndata: 1\n\n');
    expect(formatSseComment('heartbeat')).toBe(': heartbeat\n\n');
  });

  it('reads Last-Event-ID only as a sequence number', () => {
    expect(parseLastEventId('7')).toBe(7);
    expect(parseLastEventId(undefined)).toBeNull();
    expect(parseLastEventId('abc')).toBeNull();
    expect(parseLastEventId('-1')).toBeNull();
  });
});

describe('StreamLimiter', () => {
  it('refuses past the limit and frees a slot on release', () => {
    const limiter = new StreamLimiter(2);
    expect(limiter.tryAcquire('c')).toBe(true);
    expect(limiter.tryAcquire('c')).toBe(true);
    expect(limiter.tryAcquire('c')).toBe(false);
    expect(limiter.tryAcquire('other')).toBe(true);
    limiter.release('c');
    expect(limiter.count('c')).toBe(1);
    expect(limiter.tryAcquire('c')).toBe(true);
    limiter.release('c');
    limiter.release('c');
    expect(limiter.count('c')).toBe(0);
  });

  it('counts an address apart from its clients, and a refusal takes no slot', () => {
    const limiter = new StreamLimiter(5, 2);
    expect(limiter.tryAcquire('a', '10.0.0.1')).toBe(true);
    expect(limiter.tryAcquire('b', '10.0.0.1')).toBe(true);
    expect(limiter.tryAcquire('c', '10.0.0.1')).toBe(false);
    expect(limiter.count('c')).toBe(0);
    expect(limiter.tryAcquire('c', '10.0.0.2')).toBe(true);
    limiter.release('a', '10.0.0.1');
    expect(limiter.count('a')).toBe(0);
    expect(limiter.tryAcquire('c', '10.0.0.1')).toBe(true);
  });
});

describe('LiveStreams', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  type Fake = { group: number; beats: number; said: string; closed: boolean; heartbeat(text: string): void; close(): void };
  const fake = (): Fake => ({
    group: 0,
    beats: 0,
    said: '',
    closed: false,
    heartbeat(text: string) {
      this.beats++;
      this.said = text;
    },
    close() {
      this.closed = true;
    },
  });

  it('gives each open stream one heartbeat per interval, a tenth of the streams per tick, from one timer', () => {
    vi.useFakeTimers();
    const live = new LiveStreams(1_000);
    const streams = Array.from({ length: 25 }, fake);
    for (const s of streams) live.add(s as unknown as SseStream);
    expect(live.size).toBe(25);
    expect(vi.getTimerCount()).toBe(1);
    // The first at once: the client learns the interval before any silence could worry it.
    expect(streams.map((s) => s.beats)).toEqual(streams.map(() => 1));
    const total = () => streams.reduce((n, s) => n + s.beats, 0);
    let most = 0;
    for (let t = 0; t < 10; t++) {
      const before = total();
      vi.advanceTimersByTime(100);
      most = Math.max(most, total() - before);
    }
    expect(streams.map((s) => s.beats)).toEqual(streams.map(() => 2));
    expect(most).toBe(3);
    expect(streams[0]!.said, 'each heartbeat says the interval').toBe(': heartbeat 1000\n\n');
    vi.advanceTimersByTime(1_000);
    expect(streams.map((s) => s.beats)).toEqual(streams.map(() => 3));
    // A closed stream gets no more; once none is open, the timer stops.
    live.delete(streams[0] as unknown as SseStream);
    vi.advanceTimersByTime(1_000);
    expect(streams[0]!.beats).toBe(3);
    expect(streams[1]!.beats).toBe(4);
    for (const s of streams.slice(1)) live.delete(s as unknown as SseStream);
    expect(live.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('closes every open stream at shutdown', () => {
    const live = new LiveStreams(1_000);
    const streams = Array.from({ length: 12 }, fake);
    for (const s of streams) live.add(s as unknown as SseStream);
    live.closeAll();
    expect(streams.every((s) => s.closed)).toBe(true);
    for (const s of streams) live.delete(s as unknown as SseStream);
  });
});

describe('status relay over SSE', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.02 },
      config: { relay: { minIntervalMs: 20, maxIntervalMs: 80, deadlineMs: 60_000, heartbeatMs: 50 } },
    });
  });
  afterAll(() => h.close());

  async function pay(msisdn: string) {
    const token = await h.mintPayment();
    const res = await h.post('/payments', { msisdn }, { token });
    expect(res.status).toBe(202);
    return { token, reference: res.body.reference as string };
  }

  it.each([
    ['233240000001', 'COMPLETED', undefined],
    ['233240000404', 'FAILED', 'PAYMENT_FAILED'],
    ['233200000003', 'CANCELLED', undefined],
  ])('streams %s to %s and ends the stream', async (msisdn, status, failureCode) => {
    const { token, reference } = await pay(msisdn);
    const stream = await openStream(`${h.baseUrl}/payments/${reference}/events`, token);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toMatch(/no-cache/);
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    await stream.ended;
    const last = stream.events.at(-1)!;
    expect(last.event).toBe('status');
    expect(paymentSnapshot.parse(last.data)).toMatchObject({ reference, status });
    expect(last.data.failureCode).toBe(failureCode);
    // Connecting late is fine: the stream starts from whatever the state is now (PENDING or already final).
    for (const e of stream.events.slice(0, -1)) expect(e.data.status).toBe('PENDING');
    const ids = stream.events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sends heartbeats while a payment stays pending', async () => {
    const { token, reference } = await pay('233260000004');
    const stream = await openStream(`${h.baseUrl}/payments/${reference}/events`, token);
    await stream.waitForComments(2);
    expect(stream.events.map((e) => e.data.status)).toEqual(['PENDING']);
    stream.close();
  });

  it('resumes with Last-Event-ID: only newer states, or nothing while nothing is newer', async () => {
    const { token, reference } = await pay('233260000004');
    const first = await openStream(`${h.baseUrl}/payments/${reference}/events`, token);
    const pending = await first.waitFor((e) => e.data.status === 'PENDING');
    first.close();

    // Nothing newer than what the client has: it gets heartbeats, no event.
    const quiet = await openStream(`${h.baseUrl}/payments/${reference}/events`, token, { 'last-event-id': pending.id });
    await quiet.waitForComments(2);
    expect(quiet.events).toEqual([]);

    // The customer approves on the phone: the waiting stream gets only the new state.
    const { payments } = (await (await fetch(`${h.sandbox.url}/__sandbox/payments`)).json()) as { payments: { referenceNo: string; referenceId: string }[] };
    const upstream = payments.find((p) => p.referenceNo === reference)!;
    const approve = await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
    expect(approve.status).toBe(303);
    await quiet.ended;
    expect(quiet.events.map((e) => e.data.status)).toEqual(['COMPLETED']);
    expect(Number(quiet.events[0]!.id)).toBeGreaterThan(Number(pending.id));

    // Reconnecting with the final id: nothing to send, and the stream ends at once.
    const after = await openStream(`${h.baseUrl}/payments/${reference}/events`, token, { 'last-event-id': quiet.events[0]!.id });
    await after.ended;
    expect(after.events).toEqual([]);
  });

  it('refuses a fourth concurrent stream of one client with RATE_LIMITED, and frees the slot on disconnect', async () => {
    const { token, reference } = await pay('233260000004');
    const url = `${h.baseUrl}/payments/${reference}/events`;
    const open = [await openStream(url, token), await openStream(url, token), await openStream(url, token)];
    await Promise.all(open.map((s) => s.waitFor(() => true)));
    const fourth = await openStream(url, token);
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toBe('RATE_LIMITED');
    expect(fourth.headers.get('retry-after')).toBe('1');
    open[0]!.close();
    const again = await eventually(async () => {
      const s = await openStream(url, token);
      if (s.status === 200) return s;
      return undefined;
    }, 5_000, 50);
    expect(again.status).toBe(200);
    for (const s of [...open, again]) s.close();
  });
});

describe('status relay polling cost', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.1 }, // 233240000001 completes after ~300 ms
      config: {
        relay: { minIntervalMs: 40, maxIntervalMs: 80, deadlineMs: 60_000 },
        limits: { streamsPerClient: { points: 1_000, durationSec: 3_600 } },
      },
    });
  });
  afterAll(() => h.close());

  const statusReads = () => h.sandbox.app.sandbox.requestCounts.get('payment.status') ?? 0;

  async function watched(watchers: number): Promise<number> {
    const before = statusReads();
    const token = await h.mintPayment();
    const res = await h.post('/payments', { msisdn: '233240000001' }, { token });
    const url = `${h.baseUrl}/payments/${res.body.reference}/events`;
    const streams = await Promise.all(Array.from({ length: watchers }, () => openStream(url, token)));
    expect(streams.every((s) => s.status === 200)).toBe(true);
    await Promise.all(streams.map((s) => s.ended));
    for (const s of streams) expect(s.events.at(-1)!.data.status).toBe('COMPLETED');
    await sleep(200); // any poller that were still running would read again by now
    return statusReads() - before;
  }

  it('costs 200 watchers the same upstream status reads as one', async () => {
    const one = await watched(1);
    const many = await watched(200);
    expect(one).toBeGreaterThan(0);
    // Same schedule, same settle time: equal within the jitter of one or two polls, far from 200x.
    expect(many).toBeLessThanOrEqual(one + 3);
  });
});

describe('callback hints', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { timeScale: 0.01 },
      // One poll at the start, the next a minute later: only a hint can explain a fast final state.
      config: { relay: { minIntervalMs: 60_000, maxIntervalMs: 60_000, deadlineMs: 600_000 } },
    });
  });
  afterAll(() => h.close());

  async function pendingPayment() {
    const token = await h.mintPayment();
    const res = await h.post('/payments', { msisdn: '233260000004' }, { token });
    const reference = res.body.reference as string;
    const stream = await openStream(`${h.baseUrl}/payments/${reference}/events`, token);
    await stream.waitFor((e) => e.data.status === 'PENDING');
    await eventually(() => ((h.sandbox.app.sandbox.requestCounts.get('payment.status') ?? 0) > 0 ? true : undefined));
    const upstream = [...h.sandbox.app.sandbox.payments.values()].find((p) => p.referenceNo === reference)!;
    return { token, reference, stream, upstream };
  }

  it('brings the final state at once when the provider calls back (sandbox paymentCallbackUrl)', async () => {
    h.sandbox.app.sandbox.options.paymentCallbackUrl = `${h.baseUrl}/callbacks/payments/{callbackId}`;
    try {
      const { stream, upstream } = await pendingPayment();
      const started = Date.now();
      await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
      await stream.ended;
      expect(stream.events.at(-1)!.data.status).toBe('COMPLETED');
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      delete h.sandbox.app.sandbox.options.paymentCallbackUrl;
    }
  });

  it('brings the final state at once on a hint posted by hand, whatever the body', async () => {
    const { stream, upstream } = await pendingPayment();
    await fetch(`${h.sandbox.url}/__sandbox/phone/payments/${upstream.referenceId}/approve`, { method: 'POST', redirect: 'manual' });
    const hint = await h.request('POST', `/callbacks/payments/${upstream.callbackId}`, {
      body: 'status=COMPLETED&amount=999999',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(hint.status).toBe(204);
    await stream.ended;
    expect(stream.events.at(-1)!.data.status).toBe('COMPLETED');
    // The body's made-up amount is not believed.
    expect(stream.events.at(-1)!.data.amount).toBe(12.5);
  });

  it('answers 204 to an unknown callback id and trusts nothing in the body', async () => {
    const { stream, upstream } = await pendingPayment();
    const res = await h.post('/callbacks/payments/not-a-real-callback-id', { status: 'COMPLETED', callbackId: upstream.callbackId });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    await sleep(150);
    expect(stream.events.map((e) => e.data.status)).toEqual(['PENDING']);
    stream.close();
  });
});

describe('streams per address (finding 10)', () => {
  it('caps the streams of one address whatever the token, as well as per token', async () => {
    const h = await startHarness({ config: { limits: { streamsPerAddress: { points: 5, durationSec: 3_600 } } } });
    try {
      const open: Array<{ status: number; close(): void }> = [];
      // A page reloaded again and again: a new token each time, three streams each (the per-token cap).
      for (let reload = 0; reload < 3; reload++) {
        const token = await h.mintPayment();
        const { reference } = (await h.post('/payments', { msisdn: '233260000004' }, { token })).body;
        for (let i = 0; i < 3; i++) open.push(await openStream(`${h.baseUrl}/payments/${reference}/events`, token));
      }
      expect(open.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429]);
      // Closing one frees a place.
      open[0]!.close();
      const token = await h.mintPayment();
      const { reference } = (await h.post('/payments', { msisdn: '233260000004' }, { token })).body;
      await eventually(async () => {
        const again = await openStream(`${h.baseUrl}/payments/${reference}/events`, token);
        again.close();
        return again.status === 200 ? true : undefined;
      });
      for (const s of open) s.close();
    } finally {
      await h.close();
    }
  });
});
