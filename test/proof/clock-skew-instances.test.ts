/**
 * Two proxy processes on one Redis whose hosts' clocks disagree, with the sandbox: the real thing behind
 * `instance-clock-ahead.test.ts` (the model's world). Instance a (this process, the true clock) sends a
 * payment whose answer is lost while the request is on its way (it lands 2.5 s later); instance b (its own
 * process, its clock 90 s ahead) sweeps the unsettled orders every 200 ms and reads the payment twice before
 * it lands. On b's own clock both reads started past the grace (20 s): the try was void, b opened a hosted
 * checkout for the order, the customer paid it and approved the prompt that landed: charged twice. Every
 * process keeps Redis's clock: the try stays unknown until the request is found, the checkout is refused,
 * and the order is charged once, reported.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentUpdate } from '../../src/proxy/context.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { MOUNT, sandboxProvider, startHarness, startRedis, TEST_SECRET, type Harness, type TestRedis } from '../proxy/helpers.js';
import { lateNetwork } from '../proxy/late-network.js';
import { eventually } from '../proxy/sse-client.js';
import { startProxyInstance, type ProxyInstance } from './instances.js';
import type { HookLine } from './proxy-instance.js';
import { answerOnPhone, sleep, upstreamPayments } from './sandbox-truth.js';

const relay = { minIntervalMs: 20, maxIntervalMs: 100, deadlineMs: 60_000, lateIntervalMs: 200, sweepIntervalMs: 200, unknownGraceMs: 20_000 };

let redis: TestRedis;
let sandbox: StartedSandbox;
let dir: string;
let a: Harness;
let b: ProxyInstance;
const late = lateNetwork({ answer: '503', landAfterMs: 2_500 });
const payments: PaymentUpdate[] = [];

beforeAll(async () => {
  redis = await startRedis();
  sandbox = await startSandbox({ timeScale: 0.02 });
  dir = await mkdtemp(join(tmpdir(), 'proof-clock-'));
  a = await startHarness({
    provider: () => sandboxProvider(sandbox),
    config: { redisUrl: redis.url, relay, timeouts: { connectMs: 1_000, totalMs: 1_500 }, fetch: late.fetch, hooks: { onPaymentUpdate: (u) => void payments.push(u) } },
  });
  b = await startProxyInstance({ name: 'b', sandboxUrl: sandbox.url, redisUrl: redis.url, tokenSecret: TEST_SECRET, hookFile: join(dir, 'b.hooks'), proxy: { relay }, clockSkewMs: 90_000 });
}, 90_000);

afterAll(async () => {
  await Promise.allSettled([b?.stop(), a?.close()]);
  await Promise.allSettled([sandbox?.close(), redis?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 30_000);

describe("two proxy processes on one Redis, one host's clock 90 s ahead", () => {
  it('keeps an order whose payment request is on its way from a second charge, and reports its one completion', async () => {
    const ref = `CLOCK-${Date.now()}`;
    late.delayNext();
    const first = await a.post('/payments', { msisdn: '0260000004' }, { token: await a.mintPayment({ referenceNo: ref }) });
    expect(first.body).toMatchObject({ status: 'PENDING' });

    // b sweeps every 200 ms: it has read the unknown payment several times before the request lands.
    await sleep(1_200);
    const checkout = await fetch(`${b.url}${MOUNT}/checkouts`, { method: 'POST', headers: { authorization: `Bearer ${await a.mintCheckout({ reference: ref })}`, 'content-type': 'application/json' }, body: '{}' });
    const answer = (await checkout.json()) as { error?: string; checkoutId?: string };
    if (answer.checkoutId) {
      // The order was freed: the customer pays the session they were sent to.
      await fetch(`${sandbox.url}/checkout/${answer.checkoutId}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'msisdn=233240000001', redirect: 'manual' });
    }

    await late.landed();
    const [landed] = await eventually(async () => {
      const found = (await upstreamPayments(sandbox.url)).filter((p) => p.referenceNo === `${ref}-1`);
      return found.length === 1 ? found : undefined;
    });
    expect(await answerOnPhone(sandbox.url, landed!.referenceId, 'approve')).toBe(true);
    await eventually(async () => {
      const fromB = (await readFile(join(dir, 'b.hooks'), 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as HookLine);
      return payments.some((u) => u.snapshot.reference === `${ref}-1` && u.snapshot.status === 'COMPLETED') || fromB.some((l) => l.reference === `${ref}-1` && l.status === 'COMPLETED') || undefined;
    });

    const sessionsPaid = [...sandbox.app.sandbox.checkouts.values()].filter((s) => s.reference.endsWith(ref) && s.status === 'completed');
    expect(sessionsPaid).toEqual([]);
    expect({ status: checkout.status, error: answer.error }).toEqual({ status: 409, error: 'ORDER_IN_OTHER_PAYMENT' });
  }, 60_000);
});
