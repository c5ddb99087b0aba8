/**
 * Two merchant proxy processes (test/proof/proxy-instance.ts) on one real redis-server, behind a
 * round-robin front, so consecutive requests land on different instances (each answer says which in
 * `x-instance`). The sandbox runs here, so what reached the provider is counted where the money moves:
 * its outbox, its `requestCounts` and `GET /__sandbox/payments`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerSettingsFromEnv } from '../../src/proxy/config-env.js';
import { createMerchantProxy, type MerchantProxy } from '../../src/proxy/create-proxy.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { MOUNT, startRedis, TEST_LIMITS, TEST_SECRET, type TestRedis } from '../proxy/helpers.js';
import { openStream } from '../proxy/sse-client.js';
import { startProxyInstance, type ProxyInstance } from './instances.js';
import type { HookLine, InstanceSettings } from './proxy-instance.js';
import { PIN_HEADER, startRoundRobinFront, type RoundRobinFront } from './round-robin-front.js';
import { answerOnPhone, groupBy, orderOf, settled, sleep, upstreamPayments } from './sandbox-truth.js';

/** Seconds between two sends to a number: short, so the suite reaches the 4th send of 10 minutes. */
/** Long enough that the second send lands inside it on a busy machine (its token is minted beforehand). */
const COOLDOWN_SEC = 4;

let redis: TestRedis | undefined;
let sandbox: StartedSandbox | undefined;
let front: RoundRobinFront | undefined;
let minter: MerchantProxy | undefined;
let dir: string | undefined;
const instances: ProxyInstance[] = [];

interface Answer {
  status: number;
  instance: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * A POST through the front, as a browser (or the merchant's server) makes it: to the next instance in
 * turn, or to instance `pin` (0 is a, 1 is b) when the claim is about which instance answers.
 */
async function post(path: string, body: unknown, options: { token?: string; pin?: number } = {}): Promise<Answer> {
  const res = await fetch(`${front!.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.pin === undefined ? {} : { [PIN_HEADER]: String(options.pin) }),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, instance: res.headers.get('x-instance'), body: text ? JSON.parse(text) : undefined };
}

const smsTo = (digits: string) => sandbox!.app.sandbox.outbox.filter((e) => e.kind === 'sms' && e.to === digits);

async function readHooks(): Promise<HookLine[]> {
  const files = instances.map((i) => join(dir!, `${i.name}.hooks`));
  const texts = await Promise.all(files.map((f) => readFile(f, 'utf8').catch(() => '')));
  return texts.flatMap((t) => t.split('\n').filter(Boolean).map((line) => JSON.parse(line) as HookLine));
}

beforeAll(async () => {
  redis = await startRedis();
  front = await startRoundRobinFront();
  // Final states are called back through the front too: a hint may land on either instance.
  sandbox = await startSandbox({ timeScale: 0.05, paymentCallbackUrl: `${front.url}${MOUNT}/callbacks/payments/{callbackId}` });
  dir = await mkdtemp(join(tmpdir(), 'proof-instances-'));
  const settings = (name: string): InstanceSettings => ({
    name,
    sandboxUrl: sandbox!.url,
    redisUrl: redis!.url,
    tokenSecret: TEST_SECRET,
    hookFile: join(dir!, `${name}.hooks`),
    proxy: {
      limits: { otpSendCooldown: { points: 1, durationSec: COOLDOWN_SEC }, ...TEST_LIMITS },
      relay: { minIntervalMs: 20, maxIntervalMs: 100, deadlineMs: 60_000 },
    },
  });
  const started = await Promise.allSettled(['a', 'b'].map((name) => startProxyInstance(settings(name))));
  for (const s of started) if (s.status === 'fulfilled') instances.push(s.value);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  front.backends.push(...instances.map((i) => i.url));
  // The merchant's page-rendering side: mints tokens with the same secret; never mounted.
  minter = createMerchantProxy({
    provider: providerSettingsFromEnv({ SANDBOX_URL: sandbox.url }),
    tokenSecret: TEST_SECRET,
    payeeName: 'Test Shop',
  });
}, 90_000);

afterAll(async () => {
  // Every part is released even when another part failed to start or to stop.
  await Promise.allSettled(instances.map((i) => i.stop()));
  await Promise.allSettled([front?.close(), minter?.close(), sandbox?.close(), redis?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 30_000);

describe('two proxy processes on one Redis behind a round-robin front', () => {
  it('holds the OTP limits across both: cooldown, then the 4th send in 10 minutes refused, no extra SMS', async () => {
    const number = '233550000011';
    const tokens = await Promise.all([0, 1, 2, 3, 4].map(() => minter!.tokens.otp({ purpose: 'sign-in' })));
    const send = (pin: number) => post(`${MOUNT}/otp/send`, { recipient: number }, { token: tokens.pop()!, pin });

    const first = await send(0);
    expect(first).toMatchObject({ status: 200, instance: 'a' });
    const tooSoon = await send(1);
    expect(tooSoon).toMatchObject({ status: 429, instance: 'b', body: { error: 'RATE_LIMITED' } });

    const sent = [first];
    for (const pin of [1, 0]) {
      await sleep(COOLDOWN_SEC * 1000 + 200);
      sent.push(await send(pin));
    }
    expect(sent.map((s) => [s.status, s.instance])).toEqual([[200, 'a'], [200, 'b'], [200, 'a']]);

    await sleep(COOLDOWN_SEC * 1000 + 200);
    const fourth = await send(1);
    expect(fourth.status).toBe(429);
    // Refused by the 3-per-10-minutes policy, not the cooldown: the wait is minutes long.
    expect(fourth.body.details.retryAfter).toBeGreaterThan(60);
    expect(smsTo(number)).toHaveLength(3);
  }, 60_000);

  it('accepts an OTP proof once: the replay, on the other instance, is refused', async () => {
    const number = '233550000022';
    const token = await minter!.tokens.otp({ purpose: 'sign-in' });
    expect((await post(`${MOUNT}/otp/send`, { recipient: number }, { token })).status).toBe(200);
    const code = /\b(\d{6})\b/.exec((smsTo(number).at(-1) as { message: string }).message)![1];
    const verified = await post(`${MOUNT}/otp/verify`, { recipient: number, code }, { token });
    expect(verified.status).toBe(200);
    const proof = verified.body.proof as string;

    const once = await post('/test/verify-proof', { proof, purpose: 'sign-in' }, { pin: 0 });
    const replay = await post('/test/verify-proof', { proof, purpose: 'sign-in' }, { pin: 1 });
    expect(once).toMatchObject({ status: 200, instance: 'a', body: { recipient: number, purpose: 'sign-in' } });
    expect(replay).toMatchObject({ status: 401, instance: 'b', body: { error: 'TOKEN_INVALID' } });
  });

  it('makes one upstream payment for a storm of 50 concurrent POSTs on one token across both', async () => {
    const order = `ORDER-storm-${Date.now()}`;
    const token = await minter!.tokens.payment({ amount: 12.5, referenceNo: order, narration: 'Order' });
    const before = sandbox!.app.sandbox.requestCounts.get('payment.initiate') ?? 0;
    // Round robin, no pinning: the storm splits over both instances by itself.
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(`${MOUNT}/payments`, { msisdn: '233240000001' }, { token })));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((a) => a.body.reference))).toEqual(new Set([`${order}-1`]));
    expect(new Set(answers.map((a) => a.instance))).toEqual(new Set(['a', 'b']));
    // Exactly once where the money moves: one POST /v1/payment reached the sandbox, one payment exists.
    expect((sandbox!.app.sandbox.requestCounts.get('payment.initiate') ?? 0) - before).toBe(1);
    expect((await upstreamPayments(sandbox!.url)).filter((p) => orderOf(p.referenceNo) === order)).toHaveLength(1);
  });

  it('reports each final state once across both instances while both watch every payment', async () => {
    const numbers: [string, ('approve' | 'decline')?][] = [
      ['233240000001'],
      ['233240000404'],
      ['233200000003'],
      ['233550000033'],
      ['233260000004', 'approve'],
      ['233260000004', 'decline'],
    ];
    const run = Date.now().toString(36);
    const payments = await Promise.all(
      numbers.map(async ([msisdn, phone], i) => {
        const token = await minter!.tokens.payment({ amount: 5, referenceNo: `ORDER-hooks-${run}-${i}`, narration: 'Order' });
        const answer = await post(`${MOUNT}/payments`, { msisdn }, { token });
        expect(answer.status).toBe(202);
        const reference = answer.body.reference as string;
        // A watcher on each instance through the front, so both poll this payment and race to report it.
        const streams = await Promise.all(
          [0, 1].map((pin) => openStream(`${front!.url}${MOUNT}/payments/${reference}/events`, token, { [PIN_HEADER]: String(pin) })),
        );
        if (phone) {
          const referenceId = sandbox!.app.sandbox.paymentsByNo.get(reference)!;
          await answerOnPhone(sandbox!.url, referenceId, phone);
        }
        return { reference, streams };
      }),
    );
    await Promise.all(payments.flatMap((p) => p.streams.map((s) => s.ended)));

    const truth = new Map((await upstreamPayments(sandbox!.url)).map((p) => [p.referenceNo, p.status as string]));
    for (const { reference, streams } of payments) {
      for (const s of streams) expect(s.events.at(-1)?.data.status, reference).toBe(truth.get(reference));
    }
    const finalsOf = async () => groupBy((await readHooks()).filter((h) => h.final), (h) => h.reference);
    const missing = await settled(async () => {
      const finals = await finalsOf();
      return payments.filter((p) => !finals.has(p.reference));
    }, 20_000);
    expect(missing).toEqual([]);

    // Stopping both lets every hook call either instance would still make land in its file first.
    await Promise.all(instances.map((i) => i.stop()));
    const hooks = await readHooks();
    const finals = await finalsOf();
    for (const { reference } of payments) {
      expect(finals.get(reference)?.map((h) => h.status), reference).toEqual([truth.get(reference)]);
      // Once per state: no status reported twice for one payment, whichever instance saw it.
      const statuses = hooks.filter((h) => h.reference === reference).map((h) => h.status);
      expect(new Set(statuses).size, reference).toBe(statuses.length);
    }
    const byInstance = Object.fromEntries([...groupBy(hooks, (h) => h.instance)].map(([k, v]) => [k, v.length]));
    console.info(`several instances: requests per backend ${JSON.stringify(front!.served)}, hook calls by instance ${JSON.stringify(byInstance)}`);
  }, 60_000);
});
