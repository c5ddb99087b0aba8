// Keep less: what the store holds of a customer's phone number after sign-ins and payments. Where a rule only
// compares numbers (rate limits, the live OTP code of a number, the prompts waiting on a number) it holds a
// keyed hash; the records the rules do not need it in hold none. An order's record holds a try's number only
// while the try is live (its rules compare it), masked once it is final; the number a token locks as a lock.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNumberLock, numberKeys } from '../../src/proxy/number-keys.js';
import { keyIdOf } from '../../src/proxy/tokens/keys.js';
import { sandboxProvider, startHarness, startRedis, TEST_LIMITS, TEST_SECRET, type Harness, type TestRedis } from './helpers.js';
import { eventually } from './sse-client.js';

const OLD = 'old-token-secret-0123456789-abcdefghij';

describe('phone numbers at rest', () => {
  it('hashes a number under a key made from the token secret: the same on every instance, another under another secret', () => {
    const keys = numberKeys(TEST_SECRET, [OLD]);
    expect(keys.of('233240000001')).toBe(numberKeys(TEST_SECRET).of('233240000001'));
    expect(keys.of('233240000001')).not.toBe(keys.of('233240000002'));
    expect(keys.of('233240000001')).not.toContain('240000001');
    expect(keys.all('233240000001')).toEqual([keys.of('233240000001'), numberKeys(OLD).of('233240000001')]);
    expect(numberKeys(TEST_SECRET, [TEST_SECRET]).all('233240000001')).toHaveLength(1);
  });

  it('locks a number under the signing secret and names it, so a lock is compared under its own secret for as long as it is configured', () => {
    const RETIRED = 'retired-token-secret-0123456789-abcdefgh';
    const lock = numberKeys(OLD).lock('233240000001');
    expect(lock).toBe(`${numberKeys(OLD).of('233240000001')}.${keyIdOf(OLD)}`);
    expect(isNumberLock(lock)).toBe(true);
    expect(isNumberLock('233240000001')).toBe(false);
    // Signing, accepted or retired: the lock is told.
    for (const keys of [numberKeys(OLD), numberKeys(TEST_SECRET, [OLD]), numberKeys(TEST_SECRET, [], [OLD])]) {
      expect(keys.holds(lock, '233240000001')).toBe(true);
      expect(keys.holds(lock, '233240000002')).toBe(false);
    }
    // Its secret gone: nothing can tell.
    expect(numberKeys(TEST_SECRET, [RETIRED]).holds(lock, '233240000001')).toBeNull();
    // A retired secret hashes nothing new, and is looked up like the others.
    expect(numberKeys(TEST_SECRET, [], [OLD]).lock('233240000001')).toBe(numberKeys(TEST_SECRET).lock('233240000001'));
    expect(numberKeys(TEST_SECRET, [], [OLD]).all('233240000001')).toEqual(numberKeys(TEST_SECRET, [OLD]).all('233240000001'));
    // A number kept in full (a record of format 1) is compared as it is.
    expect(numberKeys(TEST_SECRET).holds('233240000001', '233240000001')).toBe(true);
    expect(numberKeys(TEST_SECRET).holds('233240000001', '233240000002')).toBe(false);
  });

  describe('after sign-ins and payments on Redis', () => {
    let redis: TestRedis;
    let h: Harness;
    beforeAll(async () => {
      redis = await startRedis();
      h = await startHarness({
        sandbox: { timeScale: 0.02 },
        config: {
          redisUrl: redis.url,
          receipts: { sms: true },
          // A receiver that never answers: every state change's webhook waits in the store.
          webhooks: { url: 'http://127.0.0.1:9/webhooks', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
          limits: TEST_LIMITS,
          relay: { minIntervalMs: 20, maxIntervalMs: 60, deadlineMs: 60_000 },
        },
      });
    });
    afterAll(async () => {
      await h?.close();
      await redis?.stop();
    });

    /** Every key of the store and the text of its value, whatever its type. */
    async function dump(): Promise<Map<string, string>> {
      const client = new Redis(redis.url);
      try {
        const out = new Map<string, string>();
        for (const key of await client.keys('*')) {
          const type = await client.type(key);
          const value =
            type === 'string' ? await client.get(key)
            : type === 'set' ? (await client.smembers(key)).join('\n')
            : type === 'hash' ? JSON.stringify(await client.hgetall(key))
            : type === 'zset' ? (await client.zrange(key, '0', '-1')).join('\n')
            : type === 'list' ? (await client.lrange(key, 0, -1)).join('\n')
            : `(${type})`;
          out.set(key, value ?? '');
        }
        return out;
      } finally {
        client.disconnect();
      }
    }

    it('holds no full number once the payments are final, and logs none', async () => {
      const signIn = '233240000017';
      const payers = ['233240000001', '233240000404'];

      const otp = await h.mintOtp({ purpose: 'sign-in' });
      expect((await h.post('/otp/send', { recipient: signIn }, { token: otp })).status).toBe(200);
      expect((await h.post('/otp/verify', { recipient: signIn, code: '000000' }, { token: otp })).body.error).toBe('OTP_INVALID');
      expect((await h.post('/otp/verify', { recipient: signIn, code: h.lastCode(signIn) }, { token: otp })).status).toBe(200);
      // A second code, sent and left waiting: the number's live code is in the store until it expires.
      expect((await h.post('/otp/send', { recipient: '233240000018' }, { token: await h.mintOtp() })).status).toBe(200);

      const keys = numberKeys(TEST_SECRET);
      for (const [i, msisdn] of payers.entries()) {
        // The token locks the number: the order's terms keep it as a lock.
        const token = await h.mintPayment({ referenceNo: `KEEP-${i}`, amount: 5, msisdn });
        expect([200, 404]).toContain((await h.post('/accounts/lookup', { msisdn }, { token })).status);
        const paid = await h.post('/payments', { msisdn }, { token });
        expect(paid.status).toBe(202);
        await eventually(async () => ((await h.get(`/payments/${paid.body.reference}`, { token })).body.status !== 'PENDING' ? true : undefined), 30_000);
      }
      // The SMS receipt of the completed payment went out: the number was in the outbox until then.
      await eventually(() => (h.smsTo('233240000001').some((sms) => sms.message.startsWith('Payment received')) ? true : undefined), 30_000);
      // Its message dropped the number once the receipt was sent (recorded just after the SMS left).
      await eventually(async () => ((await dump()).get('me:outbox:msg:payment:KEEP-0-1:COMPLETED')?.includes('"receipt":{"payee"') ? true : undefined), 30_000);
      // A prompt that never ends (the sandbox's 233260000004): its try stays live, and holds its number.
      const waiting = '233260000004';
      const live = await h.post('/payments', { msisdn: waiting }, { token: await h.mintPayment({ referenceNo: 'KEEP-2', amount: 5 }) });
      expect(live.body.status).toBe('PENDING');
      const stored = await dump();
      for (const id of ['payment:KEEP-0-1:PENDING', 'payment:KEEP-1-1:FAILED']) {
        expect(stored.get(`me:outbox:msg:${id}`), id).toContain('"receipt":{"payee"');
      }

      const store = await dump();
      const numbers = [signIn, '233240000018', ...payers, waiting];
      const holding = [...store].filter(([key, value]) => numbers.some((n) => key.includes(n) || value.includes(n) || value.includes(`0${n.slice(3)}`)));
      // Only the live try's record: the prompts waiting on its number are indexed under the number's hash.
      expect(holding.map(([key]) => key)).toEqual(['me:ord:KEEP-2']);
      expect(JSON.parse(store.get('me:ord:KEEP-2')!)).toMatchObject({ tries: [{ phase: 'pending', msisdn: waiting }] });
      expect(store.get(`me:ord:inflight:${keys.of(waiting)}`)).toBe('KEEP-2-1');
      // The records keep each try's number masked, as a page or the operator is shown it.
      for (const [i, msisdn] of payers.entries()) {
        expect(JSON.parse(store.get(`me:ord:KEEP-${i}`)!)).toMatchObject({ tries: [{ msisdn: `+233 24 *** **${msisdn.slice(-2)}` }] });
      }

      // Nor does the log, at its most detailed level (numbers masked: first and last three digits).
      const logged = h.logs.lines.join('\n');
      expect(numbers.filter((n) => logged.includes(n) || logged.includes(`0${n.slice(3)}`))).toEqual([]);
      expect(logged).toContain('233******017');

      // What the rules still need is there, under the number's hash: the limits and the waiting code.
      expect(store.has(`me:otp-latest:${keys.of('233240000018')}`)).toBe(true);
      expect([...store.keys()].some((k) => k.startsWith('me:rl:otpSendPerNumberDay') && k.endsWith(keys.of(signIn)))).toBe(true);
      expect([...store.keys()].some((k) => k.startsWith('me:rl:paymentPromptsPerNumber') && k.endsWith(keys.of('233240000001')))).toBe(true);
    }, 120_000);

    it('keeps the number a token locks as a lock (a new store is of format 2), told through a rotation of the token secret while the old one is kept', async () => {
      const prefix = 'rot:';
      const NEW = 'the-next-token-secret-0123456789-abcdef';
      const number = '233240000001';
      const admin = new Redis(redis.url);
      const first = await startHarness({ config: { redisUrl: redis.url, redisPrefix: prefix } });
      const started: Harness[] = [first];
      const next = async (config: { acceptedTokenSecrets?: string[]; retiredTokenSecrets?: string[] }) => {
        const h = await startHarness({ config: { redisUrl: redis.url, redisPrefix: prefix, tokenSecret: NEW, ...config }, provider: () => sandboxProvider(first.sandbox) });
        started.push(h);
        return h;
      };
      const again = async (h: Harness) =>
        (await h.post('/payments', { msisdn: number }, { token: await h.mintPayment({ referenceNo: 'ROT-1', msisdn: number }) })).body as Record<string, unknown>;
      try {
        await first.proxy.ready();
        expect(await admin.get(`${prefix}store:format`)).toBe('2');
        const token = await first.mintPayment({ referenceNo: 'ROT-1', msisdn: number });
        expect((await first.post('/payments', { msisdn: number }, { token })).status).toBe(202);
        await eventually(async () => ((await first.proxy.payments.get('ROT-1'))?.status === 'COMPLETED' ? true : undefined), 30_000);
        const raw = (await admin.get(`${prefix}ord:ROT-1`))!;
        expect(raw).not.toContain(number.slice(3));
        expect(JSON.parse(raw).terms.msisdn).toBe(numberKeys(TEST_SECRET).lock(number));

        // Every step of docs/tokens.md's rotation: the new secret signs, the old one accepted, then retired.
        const retired = await next({ retiredTokenSecrets: [TEST_SECRET] });
        for (const h of [await next({ acceptedTokenSecrets: [TEST_SECRET] }), retired]) {
          expect(await again(h)).toMatchObject({ status: 'COMPLETED', reference: 'ROT-1-1' });
        }
        // A retired secret verifies no token.
        expect((await retired.post('/payments', { msisdn: number }, { token })).status).toBe(401);
        // The old secret dropped before the record's end: the order cannot tell its number, and refuses, and the
        // log says why, once.
        const forgot = await next({});
        expect(await again(forgot)).toMatchObject({ error: 'ORDER_CHANGED', details: { changed: ['msisdn'] } });
        expect(await again(forgot)).toMatchObject({ error: 'ORDER_CHANGED' });
        const told = forgot.logs.entries().filter((e) => String(e.msg).includes('PROXY_TOKEN_RETIRED_SECRETS'));
        expect(told.map((e) => e.keyId)).toEqual([keyIdOf(TEST_SECRET)]);
        expect(retired.logs.entries().some((e) => String(e.msg).includes('PROXY_TOKEN_RETIRED_SECRETS'))).toBe(false);
        expect(first.sandbox.app.sandbox.requestCounts.get('payment.initiate')).toBe(1);
      } finally {
        admin.disconnect();
        for (const h of started.reverse()) await h.close();
      }
    }, 120_000);
  });
});
