import { describe, expect, it, vi } from 'vitest';
import { CLOCK_MAX_TRIP_MS, CLOCK_RESYNC_MS, StoreClock } from '../../src/proxy/store/store-clock.js';
import { startHarness, startRedis } from './helpers.js';

/** A host whose wall clock the test sets (it may be off, or stepped) and a monotonic clock it advances. */
function host(wall: number) {
  const h = { wallMs: wall, mono: 1_000, wall: () => h.wallMs, monotonic: () => h.mono };
  return h;
}

/** A store whose clock reads `time` after `roundTripMs` of the host's monotonic clock (half each way). */
function store(h: ReturnType<typeof host>, time: () => number, roundTripMs = 0) {
  const s = {
    reads: 0,
    fail: false,
    time: vi.fn(async () => {
      s.reads++;
      if (s.fail) throw new Error('store down');
      h.mono += roundTripMs / 2;
      const t = time();
      h.mono += roundTripMs / 2;
      return t;
    }),
  };
  return s;
}

const T = Date.UTC(2026, 10, 28, 12);

/** Lets a reading started in the background end (its store answers at once): no timer, whatever the load. */
async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('StoreClock: the store’s time on every process', () => {
  it("keeps the host's clock until the store's was read, then the store's, however far the host's is off", async () => {
    const h = host(T + 25_000);
    const clock = new StoreClock(store(h, () => T + (h.mono - 1_000)), undefined, h);
    expect(clock.now()).toBe(T + 25_000);
    expect(clock.offsetMs).toBe(0);
    await clock.ensure();
    expect(clock.now()).toBe(T);
    expect(clock.offsetMs).toBe(-25_000);
  });

  it("carries the reading forward on the monotonic clock: a host's wall clock stepped later changes nothing", async () => {
    const h = host(T);
    const clock = new StoreClock(store(h, () => T), undefined, h);
    await clock.ensure();
    h.mono += 5_000;
    h.wallMs = T + 90_000;
    expect(clock.now()).toBe(T + 5_000);
  });

  it('counts a reading for the middle of its round trip', async () => {
    const h = host(T);
    // The store reads T at the middle of a 400 ms round trip: when the answer is back, it is T + 200 ms.
    const clock = new StoreClock(store(h, () => T, 400), undefined, h);
    await clock.ensure();
    expect(clock.now()).toBe(T + 200);
  });

  it('reads again when a round trip stalled (half of it would set the clock off), and rejects after three', async () => {
    const h = host(T);
    // The first request waits 60 s on its way and the store reads its clock as it arrives: taken for the middle
    // of its trip, the clock would be 30 s ahead of the store's. The second trip is 400 ms, 200 ms each way.
    const s = store(h, () => T + h.mono);
    let trip = 0;
    s.time.mockImplementation(async () => {
      s.reads++;
      h.mono += trip++ === 0 ? 60_000 : 200;
      const t = T + h.mono;
      h.mono += trip === 1 ? 0 : 200;
      return t;
    });
    const clock = new StoreClock(s, undefined, h);
    await clock.ensure();
    expect(s.reads).toBe(2);
    expect(clock.now()).toBe(T + h.mono);

    const slow = store(h, () => T, CLOCK_MAX_TRIP_MS + 2);
    const stalled = new StoreClock(slow, undefined, h);
    await expect(stalled.ensure()).rejects.toMatchObject({ name: 'StoreUnavailableError', operation: 'time' });
    expect(slow.reads).toBe(3);
  });

  it('reads once for callers that ask together, and again only once a reading is a minute old (in the background)', async () => {
    const h = host(T);
    let storeTime = T;
    const s = store(h, () => storeTime);
    const clock = new StoreClock(s, undefined, h);
    await Promise.all([clock.ensure(), clock.ensure(), clock.ensure()]);
    expect(s.reads).toBe(1);
    h.mono += CLOCK_RESYNC_MS - 1;
    await clock.ensure();
    expect(s.reads).toBe(1);
    // A minute on, the store's clock says 3 s more than the monotonic one counted (it was corrected): read again.
    h.mono += 1;
    storeTime = T + CLOCK_RESYNC_MS + 3_000;
    await clock.ensure();
    await settled();
    expect(clock.now()).toBe(T + CLOCK_RESYNC_MS + 3_000);
    expect(s.reads).toBe(2);
  });

  it('rejects while the store cannot be read (as any store call), then reads it when it answers', async () => {
    const h = host(T + 25_000);
    const s = store(h, () => T);
    s.fail = true;
    const clock = new StoreClock(s, undefined, h);
    await expect(clock.ensure()).rejects.toThrow('store down');
    expect(clock.now()).toBe(T + 25_000);
    s.fail = false;
    await clock.ensure();
    expect(clock.now()).toBe(T);
  });

  it('keeps the last reading when a renewal fails', async () => {
    const h = host(T);
    const s = store(h, () => T);
    const clock = new StoreClock(s, undefined, h);
    await clock.ensure();
    s.fail = true;
    h.mono += CLOCK_RESYNC_MS;
    await clock.ensure();
    await settled();
    expect(s.reads).toBe(2);
    expect(clock.now()).toBe(T + CLOCK_RESYNC_MS);
  });

  it("says once in the log how far this host's clock is off the store's, and again when that changes by a second", async () => {
    const h = host(T + 25_000);
    const warn = vi.fn();
    let storeTime = T;
    const clock = new StoreClock(store(h, () => storeTime), { warn }, h);
    await clock.ensure();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toEqual({ offsetMs: -25_000 });
    for (const [mono, time, calls] of [[CLOCK_RESYNC_MS, T + 500, 1], [CLOCK_RESYNC_MS, T - 2_000, 2]] as const) {
      h.mono += mono;
      h.wallMs = T + 25_000 + (h.mono - 1_000);
      storeTime = time + (h.mono - 1_000);
      await clock.ensure();
      await settled();
      expect(warn).toHaveBeenCalledTimes(calls);
    }
    expect(warn.mock.calls[1]![0]).toEqual({ offsetMs: -27_000 });
  });

  it("keeps the host's clock for a store without a clock of its own", async () => {
    const h = host(T + 25_000);
    const clock = new StoreClock({}, undefined, h);
    await clock.ensure();
    expect(clock.now()).toBe(T + 25_000);
  });
});

describe("a proxy on Redis whose host's clock is 25 s ahead of Redis's", () => {
  it("stamps the money's times, answers `Date` and says so in the log on Redis's clock", async () => {
    const redis = await startRedis();
    const real = Date.now.bind(Date);
    // This process stands for a host whose clock is ahead; Redis (another process) keeps the true time.
    const ahead = vi.spyOn(Date, 'now').mockImplementation(() => real() + 25_000);
    const h = await startHarness({ config: { redisUrl: redis.url, redisPrefix: `clock${real()}:` } });
    try {
      await h.proxy.ready();
      const logged = h.logs.entries().find((l) => /off the store's/.test(String(l['msg'])));
      expect(logged?.['offsetMs']).toBeGreaterThan(-26_000);
      expect(logged?.['offsetMs']).toBeLessThan(-24_000);

      const token = await h.mintPayment();
      const before = real();
      const res = await h.post('/payments', { msisdn: '233240000001' }, { token });
      const after = real();
      expect(res.status).toBe(202);
      // Between the request's start and its answer on the true clock (however slow the machine), 25 s from this
      // host's; `Date` counts whole seconds, and a reading of Redis's clock is off by half its round trip at most.
      const sentAt = Date.parse((res.body as { sentAt: string }).sentAt);
      expect(sentAt).toBeGreaterThanOrEqual(before - 1_000);
      expect(sentAt).toBeLessThanOrEqual(after + 1_000);
      const date = Date.parse(res.headers.get('date')!);
      expect(date).toBeGreaterThanOrEqual(before - 2_000);
      expect(date).toBeLessThanOrEqual(after + 1_000);
    } finally {
      ahead.mockRestore();
      await h.close();
      await redis.stop();
    }
  });
});
