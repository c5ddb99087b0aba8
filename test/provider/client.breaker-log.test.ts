import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProviderClient } from '../../src/provider/index.js';
import { BALANCE, localConfig } from './local-config.js';


/** A fetch answering 503 until `healthy` is set, then the balance; counts what it was asked. */
function provider() {
  const state = { healthy: false, calls: 0 };
  const fetch: typeof globalThis.fetch = async () => {
    state.calls++;
    return state.healthy
      ? new Response(JSON.stringify(BALANCE), { status: 200, headers: { 'content-type': 'application/json' } })
      : new Response(JSON.stringify({ error: 'SERVICE_UNAVAILABLE', message: 'Down', details: {} }), { status: 503, headers: { 'content-type': 'application/json' } });
  };
  return { state, fetch };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('provider client: the circuit breaker in the log', () => {
  it('warns when a circuit opens and when it closes again, and puts each call it refuses meanwhile at debug', async () => {
    const lines: { level: string; msg: string | undefined; fields: Record<string, unknown> }[] = [];
    const log = (level: string) => (fields: object, msg?: string) => lines.push({ level, msg, fields: fields as Record<string, unknown> });
    // The breaker keeps its time by Date: the clock moves when the test says, whatever the machine's speed.
    vi.useFakeTimers({ toFake: ['Date'] });
    const upstream = provider();
    const client = createProviderClient(
      localConfig(1, {
        fetch: upstream.fetch,
        logger: { debug: log('debug'), warn: log('warn'), error: log('error') },
        circuitBreaker: { threshold: 0.5, minimumCalls: 4, windowMs: 10_000, halfOpenAfterMs: 60_000 },
      }),
    );
    for (let i = 0; i < 4; i++) await expect(client.account.balance()).rejects.toMatchObject({ reason: 'http' });
    for (let i = 0; i < 100; i++) await expect(client.account.balance()).rejects.toMatchObject({ reason: 'circuit-open' });
    expect(upstream.state.calls).toBe(4);

    const turns = () => lines.filter((l) => l.msg?.startsWith('provider circuit ')).map((l) => `${l.level} ${String(l.fields['circuit'])}`);
    expect(turns()).toEqual(['warn open']);
    const refusals = lines.filter((l) => l.msg === 'provider call refused: circuit open');
    expect(refusals).toHaveLength(100);
    expect(refusals.every((l) => l.level === 'debug')).toBe(true);

    upstream.state.healthy = true;
    vi.setSystemTime(Date.now() + 60_000);
    await expect(client.account.balance()).resolves.toMatchObject({ statusCode: '200' });
    expect(turns()).toEqual(['warn open', 'debug half-open', 'warn closed']);
    expect(lines.find((l) => l.msg?.startsWith('provider circuit open'))?.fields).toEqual({ upstream: 'messaging', calls: 'foreground', circuit: 'open', retryInMs: 60_000 });
    // The line that ends the outage says how long it lasted and how many calls were refused meanwhile.
    expect(lines.find((l) => l.msg?.startsWith('provider circuit closed'))?.fields).toMatchObject({ refused: 100, downMs: 60_000 });
    await client.close();
  });

  it('tells an outage once: a failed trial opening the circuit again is at debug, not another warning', async () => {
    const lines: { level: string; msg: string | undefined }[] = [];
    const log = (level: string) => (_fields: object, msg?: string) => lines.push({ level, msg });
    vi.useFakeTimers({ toFake: ['Date'] });
    const upstream = provider();
    const client = createProviderClient(
      localConfig(1, {
        fetch: upstream.fetch,
        logger: { debug: log('debug'), warn: log('warn'), error: log('error') },
        circuitBreaker: { threshold: 0.5, minimumCalls: 4, windowMs: 10_000, halfOpenAfterMs: 1_000, maxHalfOpenAfterMs: 4_000 },
      }),
    );
    for (let i = 0; i < 4; i++) await expect(client.account.balance()).rejects.toMatchObject({ reason: 'http' });
    for (let trial = 0; trial < 5; trial++) {
      vi.setSystemTime(Date.now() + 4_000);
      await expect(client.account.balance()).rejects.toMatchObject({ reason: 'http' });
    }
    const turns = lines.filter((l) => l.msg?.startsWith('provider circuit ')).map((l) => `${l.level} ${l.msg!.split(':')[0]}`);
    expect(turns.filter((t) => t.startsWith('warn'))).toEqual(['warn provider circuit open']);
    expect(turns.filter((t) => t === 'debug provider circuit open again')).toHaveLength(5);
    await client.close();
  });
});
