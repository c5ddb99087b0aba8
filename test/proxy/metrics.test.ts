/**
 * Metrics in the Prometheus format (issue 35): scraped over loopback during a provider outage (the sandbox's
 * faults) and a webhook receiver outage, they show each: the open circuit, the refused calls and answers, the
 * backlog of webhooks and its age, the pending payment. One registry per proxy: two in a process keep apart.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMerchantProxy } from '../../src/proxy/create-proxy.js';
import { countedStore } from '../../src/proxy/metrics.js';
import { MemoryStore } from '../../src/proxy/store/index.js';
import { sandboxProvider, startHarness, TEST_SECRET, type Harness } from './helpers.js';
import { eventually } from './sse-client.js';
import { startReceiver, type TestReceiver } from './webhook-receiver.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
let h: Harness | undefined;
let receiver: TestReceiver | undefined;
let scrapeServer: Server | undefined;
afterEach(async () => {
  scrapeServer?.close();
  await h?.close();
  await receiver?.stop();
  h = receiver = scrapeServer = undefined;
});

/** Serves the proxy's metrics handler on a loopback port of its own, as an operator mounts it. */
async function scraper(handler: Harness['proxy']['metrics']['handler']): Promise<() => Promise<string>> {
  scrapeServer = createServer(handler);
  await new Promise<void>((resolve) => scrapeServer!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(scrapeServer.address() as AddressInfo).port}/metrics`;
  return async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    return res.text();
  };
}

/** The value of one sample, by its name and labels as written (`name{a="b"}`); undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  it('show a provider outage and a receiver outage while they last', async () => {
    receiver = await startReceiver();
    await receiver.stop();
    h = await startHarness({
      config: {
        webhooks: { url: receiver.url, secret: SECRET, timeoutMs: 500 },
        relay: { minIntervalMs: 50, maxIntervalMs: 200, deadlineMs: 60_000, outboxBackoffMs: 20, outboxMaxBackoffMs: 100 },
        circuitBreaker: { threshold: 0.5, minimumCalls: 4, windowMs: 60_000, halfOpenAfterMs: 600_000 },
      },
    });
    const scrape = await scraper(h.proxy.metrics.handler);

    // A payment that stays pending, whose webhook finds the receiver down.
    const token = await h.mintPayment({ referenceNo: 'METRICS-1' });
    expect((await h.post('/payments', { msisdn: '0260000004' }, { token })).status).toBe(202);
    // The messaging interface answers 503: four sends reach it, then its circuit refuses the rest.
    await fetch(`${h.sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: '503', count: 1_000, path: '/v1/external/generate/otp' }),
    });
    for (let i = 0; i < 6; i++) expect((await h.post('/otp/send', { recipient: `024555100${i}` }, { token: await h.mintOtp() })).status).toBe(503);

    const text = await eventually(async () => {
      const t = await scrape();
      return (sample(t, 'merchant_proxy_outbox_pending{consumer="webhook"}') ?? 0) >= 1 ? t : undefined;
    }, 30_000);
    expect(sample(text, 'merchant_proxy_provider_circuit_state{interface="messaging",calls="foreground"}')).toBe(2);
    expect(sample(text, 'merchant_proxy_provider_circuit_state{interface="payment",calls="foreground"}')).toBe(0);
    expect(sample(text, 'merchant_proxy_provider_calls_total{interface="messaging",operation="otp.generate",calls="foreground",outcome="unavailable"}')).toBe(4);
    expect(sample(text, 'merchant_proxy_provider_calls_total{interface="messaging",operation="otp.generate",calls="foreground",outcome="refused"}')).toBe(2);
    expect(sample(text, 'merchant_proxy_provider_call_duration_seconds_count{interface="messaging",calls="foreground",outcome="unavailable"}')).toBe(4);
    expect(sample(text, 'merchant_proxy_http_requests_total{method="POST",route="/otp/send",code="503"}')).toBe(6);
    expect(sample(text, 'merchant_proxy_http_requests_total{method="POST",route="/payments",code="202"}')).toBe(1);
    expect(sample(text, 'merchant_proxy_orders_unsettled')).toBe(1);
    expect(sample(text, 'merchant_proxy_orders_live{kind="payment",phase="pending"}')).toBe(1);
    expect(sample(text, 'merchant_proxy_orders_unresolved')).toBe(0);
    expect(sample(text, 'merchant_proxy_outbox_oldest_pending_seconds{consumer="webhook"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'merchant_proxy_outbox_dead_letters')).toBe(0);
    expect(sample(text, 'merchant_proxy_reconciler_pollers')).toBe(1);
    expect(sample(text, 'merchant_proxy_event_streams_open')).toBe(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');

    // The receiver answers again: its backlog drains, and the metrics say so.
    await receiver.start();
    await eventually(async () => ((sample(await scrape(), 'merchant_proxy_outbox_pending{consumer="webhook"}') ?? 0) === 0 ? true : undefined), 30_000);
  }, 90_000);

  it('are never served by the proxy’s router, and each proxy keeps its own registry', async () => {
    h = await startHarness();
    expect((await h.get('/metrics')).status).toBe(404);
    expect((await h.get('/server/metrics')).text).not.toContain('merchant_proxy');
    const other = createMerchantProxy({ provider: sandboxProvider(h.sandbox), tokenSecret: TEST_SECRET, payeeName: 'Other Shop' });
    try {
      expect(other.metrics.registry).not.toBe(h.proxy.metrics.registry);
      const [mine, theirs] = await Promise.all([h.proxy.metrics.registry.metrics(), other.metrics.registry.metrics()]);
      expect(sample(mine, 'merchant_proxy_http_requests_total{method="GET",route="unmatched",code="404"}')).toBe(1);
      expect(theirs).not.toContain('merchant_proxy_http_requests_total{');
    } finally {
      await other.close();
    }
  });

  it('count what fails in the store, and commits it refuses because the record changed', async () => {
    const seen = { errors: [] as string[], conflicts: 0 };
    const sink = { storeError: (operation: string) => void seen.errors.push(operation), commitConflict: () => void (seen.conflicts += 1) };
    const store = countedStore(new MemoryStore(), sink);
    expect(store).toBeInstanceOf(MemoryStore);
    expect(await store.commit({ key: 'ord:A', expected: null, value: '{"v":1}' })).toBe(true);
    // Another writer got there first: the order book reads again and retries; counted once.
    expect(await store.commit({ key: 'ord:A', expected: null, value: '{"v":2}' })).toBe(false);
    expect(seen.conflicts).toBe(1);

    const broken = new MemoryStore();
    broken.get = async () => {
      throw new Error('connection lost');
    };
    await expect(countedStore(broken, sink).get('ord:A')).rejects.toThrow('connection lost');
    expect(seen.errors).toEqual(['get']);
  });
});
