/**
 * Logs say each kind of outage once, then summarise it (issue 35): during a provider outage there was a
 * warning and an error per refused request (about 2,900 error lines a minute) and a warning per webhook
 * retry (about 2,350 a minute). Now: the first failure of a kind, a line per interval with its count, and a
 * line when it ends. The outage is the sandbox's fault injection, over loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { OutageLog, outageLogOf } from '../../src/proxy/outage-log.js';
import { startHarness, type Harness } from './helpers.js';
import { eventually } from './sse-client.js';

const LOOSE = {
  otpSendPerToken: { points: 1000, durationSec: 3600 },
  otpSendPerIp: { points: 1000, durationSec: 3600 },
  otpSendPerNumberShort: { points: 1000, durationSec: 600 },
  otpSendPerNumberDay: { points: 1000, durationSec: 86_400 },
  otpSendCooldown: { points: 1000, durationSec: 60 },
  otpSendPerPrefix: { points: 1000, durationSec: 3600 },
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Line = Record<string, unknown> & { level: number; msg: string };
const WARN = 40;

describe('a provider outage in the log', () => {
  it('is told once, summarised with its count per interval, and ended, instead of two lines per refused request', async () => {
    h = await startHarness({
      config: {
        limits: LOOSE,
        // The test says when an interval has passed, whatever the machine's speed.
        outageSummaryIntervalMs: 600_000,
        // Opens after 4 failures and stays open for the test: later sends are refused before the provider.
        circuitBreaker: { threshold: 0.5, minimumCalls: 4, windowMs: 60_000, halfOpenAfterMs: 600_000 },
      },
    });
    const lines = () => h!.logs.entries() as Line[];
    await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: '503', count: 1_000, path: '/v1/external/generate/otp' }),
    });
    const token = await h.mintOtp();
    const REFUSED = 40;
    for (let i = 0; i < REFUSED; i++) expect((await h.post('/otp/send', { recipient: '0240000001' }, { token })).status).toBe(503);

    // An interval: one summary line per kind; then an interval with none: each kind ends with its total.
    const outages = outageLogOf(h.proxy.logger)!;
    outages.summarise();
    outages.summarise();
    const ended = lines().find((l) => l.msg.startsWith('outage ended: the provider is unavailable'));
    expect(ended).toMatchObject({ outage: 'provider-unavailable:otp', total: REFUSED });
    expect(outages.totals()).toEqual({});

    const all = lines();
    // Not one error line; the access lines of the refusals are ordinary ones.
    expect(all.filter((l) => l.level > WARN)).toEqual([]);
    expect(all.filter((l) => l.msg === 'request refused: unavailable')).toHaveLength(REFUSED);
    // The first refusal told as it was, every later one counted in a summary, and one end.
    const unavailable = all.filter((l) => l.outage === 'provider-unavailable:otp');
    expect(unavailable[0]).toMatchObject({ msg: 'the provider is unavailable', upstream: { operation: 'otp.generate' } });
    const summaries = unavailable.filter((l) => typeof l.count === 'number');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ count: REFUSED - 1, total: REFUSED });
    // Every warning of the outage: its first line, the breaker's opening, the first failed call, the summaries
    // and the ends. A handful, whatever the number of refused requests.
    const warnings = all.filter((l) => l.level === WARN);
    const summaryLines = warnings.filter((l) => typeof l.count === 'number').length;
    const endLines = warnings.filter((l) => l.msg.startsWith('outage ended')).length;
    expect(warnings.length - summaryLines - endLines).toBe(3);
    expect(warnings.map((l) => l.msg)).toContain('provider circuit open: foreground calls to the messaging interface are refused, one tried again after 600000 ms (then twice as long each time it fails)');
  });
});

describe('a payment gateway outage in the log', () => {
  it('is told once however many payments it refuses', async () => {
    h = await startHarness({
      config: { outageSummaryIntervalMs: 600_000, circuitBreaker: { threshold: 0.5, minimumCalls: 4, windowMs: 60_000, halfOpenAfterMs: 600_000 } },
    });
    await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: '503', count: 1_000, path: '/gateway/v1/payment' }),
    });
    for (let i = 0; i < 30; i++) expect((await h.post('/payments', { msisdn: '0240000001' }, { token: await h.mintPayment() })).status).toBe(503);
    const loud = (h.logs.entries() as Line[]).filter((l) => l.level >= WARN);
    // The first refusal, the first failed call, the breaker's opening: three lines for thirty refusals.
    expect(loud.map((l) => l.msg.split(':')[0])).toEqual(['provider call failed', 'the provider is unavailable', 'provider circuit open']);
    expect(outageLogOf(h.proxy.logger)!.totals()).toMatchObject({ 'provider-unavailable:payments': 30 });
  });
});

describe('a hook that keeps failing in the log', () => {
  it('tells the consumer’s failures once, then counts them, and says when deliveries go through again', async () => {
    let failing = true;
    h = await startHarness({
      config: {
        outageSummaryIntervalMs: 600_000,
        relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000, outboxBackoffMs: 10, outboxMaxBackoffMs: 20 },
        hooks: {
          onPaymentUpdate: () => {
            if (failing) throw new Error('merchant database down');
          },
        },
      },
    });
    const lines = () => h!.logs.entries() as Line[];
    const token = await h.mintPayment();
    expect((await h.post('/payments', { msisdn: '233240000001' }, { token })).status).toBe(202);
    const outages = outageLogOf(h.proxy.logger)!;
    // Retried again and again, told once.
    await eventually(() => ((outages.totals()['outbox:hooks'] ?? 0) >= 5 ? true : undefined), 30_000);
    outages.summarise();
    expect(lines().filter((l) => l.msg === 'outbox delivery failed; will retry')).toHaveLength(1);
    failing = false;
    // Once a whole interval passes without a failure, it ends.
    const ended = await eventually(() => {
      outages.summarise();
      return lines().find((l) => l.outage === 'outbox:hooks' && l.msg.startsWith('outage ended'));
    }, 30_000);
    const counted = lines().filter((l) => l.outage === 'outbox:hooks' && typeof l.count === 'number').reduce((sum, l) => sum + Number(l.count), 0);
    expect(ended.total).toBe(counted + 1);
    expect(Number(ended.total)).toBeGreaterThanOrEqual(5);
  });
});

describe('OutageLog', () => {
  it('tells a kind again after it ended, as a new outage', () => {
    const out: Line[] = [];
    const logger = pino({ level: 'debug' }, { write: (l: string) => void out.push(JSON.parse(l) as Line) });
    let tick: () => void = () => undefined;
    const log = new OutageLog(logger, { intervalMs: 1_000, every: (fn) => ((tick = fn), () => undefined) });
    for (let i = 0; i < 5; i++) log.report('store', 'error', { store: { operation: 'get' } }, 'the store is unavailable');
    tick();
    tick();
    log.report('store', 'error', {}, 'the store is unavailable');
    expect(out.map((l) => [l.level, l.msg.split(' (')[0], l.count ?? l.total ?? null])).toEqual([
      [50, 'the store is unavailable', null],
      [50, 'the store is unavailable', 4],
      [WARN, 'outage ended: the store is unavailable', 5],
      [50, 'the store is unavailable', null],
    ]);
  });
});
