import { openStream } from '../../test/proxy/sse-client.js';
import { BENCH_SECRET, browserHeaders, call, expectStatus, mint, MOUNT, sleep, type JsonAnswer } from '../lib/http.js';
import { startProcess, type BenchProcess } from '../lib/processes.js';
import type { SectionResult } from '../lib/report.js';
import { fmt, percentile } from '../lib/stats.js';

/**
 * Traffic before the first recorded sample: V8 grows its young generation to its working size over the
 * first 20-25 s of this load (heap total 33 → 58 MiB while the heap used stays at 23-24 MiB), which is
 * resident memory taken once, not kept per request.
 */
const WARMUP_MS = 30_000;
/** The measured soak: 60 s of mixed traffic after the warm-up. */
const MEASURED_MS = 60_000;
const DURATION_MS = WARMUP_MS + MEASURED_MS;
const SAMPLE_EVERY_MS = 5_000;
/** One journey started every this many ms, whatever the others are doing (open loop: a steady rate). */
const START_EVERY_MS = 100;
const WATCHERS_PER_PAYMENT = 2;
/** Pays in about 3 s (DESIGN: test numbers). */
const PAYS = '233240000001';
/** Stays PENDING: the payment whose status is read. */
const STAYS_PENDING = '233260000004';

/** What the traffic saw: answers through the proxy and anything unexpected. */
class Tally {
  requests = 0;
  /** Non-2xx answers that the design calls for (a wrong code is 400 OTP_INVALID), by kind. */
  expected: Record<string, number> = {};
  unexpected: string[] = [];
  latencies: number[] = [];
  streams = 0;

  /** One request through the proxy, timed; an answer other than `status` counts as an error. */
  async proxy(what: string, url: string, init: Parameters<typeof call>[1], status: number, expectedCode?: string): Promise<JsonAnswer | null> {
    const start = performance.now();
    this.requests += 1;
    try {
      const answer = await call(url, init);
      this.latencies.push(performance.now() - start);
      if (answer.status !== status || (expectedCode && answer.body?.error !== expectedCode)) {
        this.unexpected.push(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 160)}`);
        return null;
      }
      if (status >= 300) this.expected[`${status} ${expectedCode}`] = (this.expected[`${status} ${expectedCode}`] ?? 0) + 1;
      return answer;
    } catch (err) {
      this.unexpected.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  }
}

/** `+2.6 %` from `from` to `to`. */
const percentChange = (from: number, to: number) => `${to >= from ? '+' : ''}${fmt(((to - from) / from) * 100, 1)} %`;

/** The journeys, each a person's use of one element through the proxy, started in turn. */
function journeys(sandbox: BenchProcess, merchant: BenchProcess, tally: Tally, pendingRef: { reference: string; token: string }) {
  const base = `${merchant.url}${MOUNT}`;
  let number = 2_000_000;
  let order = 0;
  const post = (token: string, body: unknown) => ({ body, headers: browserHeaders(merchant, token, true) });
  const get = (token: string) => ({ headers: browserHeaders(merchant, token) });

  return [
    async function otp() {
      const recipient = `23324${number++}`;
      const [token] = await mint(merchant, 'otp', { purpose: 'sign-in' });
      if (!(await tally.proxy('otp send', `${base}/otp/send`, post(token!, { recipient }), 200))) return;
      const outbox = await call(`${sandbox.url}/__sandbox/outbox?to=${recipient}`);
      const code = /\b(\d{6})\b/.exec(String(outbox.body?.entries?.at(-1)?.message ?? ''))?.[1] ?? 'none';
      await tally.proxy('otp wrong code', `${base}/otp/verify`, post(token!, { recipient, code: 'X12345' }), 400, 'OTP_INVALID');
      await tally.proxy('otp verify', `${base}/otp/verify`, post(token!, { recipient, code }), 200);
    },
    async function lookup() {
      const [token] = await mint(merchant, 'payment', { amount: 5, referenceNo: `SOAK-L-${order++}`, narration: 'Lookup' });
      await tally.proxy('account lookup', `${base}/accounts/lookup`, post(token!, { msisdn: PAYS }), 200);
    },
    async function payment() {
      const tokens = await mint(merchant, 'payment', { amount: 12.5, referenceNo: `SOAK-P-${order++}`, narration: 'Order' }, WATCHERS_PER_PAYMENT);
      const created = await tally.proxy('payment', `${base}/payments`, post(tokens[0]!, { msisdn: PAYS }), 202);
      if (!created) return;
      const reference = created.body.reference as string;
      await Promise.all(
        tokens.map(async (token) => {
          tally.streams += 1;
          const stream = await openStream(`${base}/payments/${encodeURIComponent(reference)}/events`, token);
          try {
            if (stream.status !== 200) throw new Error(`refused ${stream.status}`);
            await stream.waitFor((e) => e.data?.status === 'COMPLETED', 20_000);
          } catch (err) {
            tally.unexpected.push(`payment watcher: ${err instanceof Error ? err.message : String(err)}`);
          } finally {
            stream.close();
          }
        }),
      );
      await tally.proxy('payment status', `${base}/payments/${encodeURIComponent(reference)}`, get(tokens[0]!), 200);
    },
    async function statusReads() {
      for (let i = 0; i < 3; i++) {
        await tally.proxy('status read', `${base}/payments/${encodeURIComponent(pendingRef.reference)}`, get(pendingRef.token), 200);
      }
    },
    async function checkout() {
      const [token] = await mint(merchant, 'checkout', {
        title: 'Order',
        reference: `SOAK-C-${order++}`,
        amount: 25,
        description: 'An order',
        returnUrl: 'https://shop.example/return',
      });
      const created = await tally.proxy('checkout', `${base}/checkouts`, post(token!, {}), 201);
      if (created) await tally.proxy('checkout status', `${base}/checkouts/${encodeURIComponent(created.body.checkoutId)}`, get(token!), 200);
    },
  ];
}

/**
 * How long after its start a server process is left alone before the soak measures it, so that start-up
 * memory is handed back first (under tsx, RSS dropped by a third some 15-20 s in, idle or not).
 */
const SETTLE_MS = 25_000;

/** The soak's own sandbox and merchant processes, and when they started. */
export interface SoakServers {
  sandbox: BenchProcess;
  merchant: BenchProcess;
  startedAt: number;
}

/**
 * Starts the soak's servers. `npm run bench` calls it first and runs the other sections meanwhile, so
 * that the servers have settled by the time the soak begins (else the soak waits for it).
 */
export async function startSoakServers(): Promise<SoakServers> {
  const startedAt = performance.now();
  const sandbox = await startProcess('sandbox', { initialCredit: 1e9 });
  const merchant = await startProcess('merchant', { sandboxUrl: sandbox.url, tokenSecret: BENCH_SECRET, logLevel: 'warn' });
  return { sandbox, merchant, startedAt };
}

/** Soak: a minute of mixed traffic at a steady rate through one proxy process; errors and its memory. */
export async function soak(log: (line: string) => void, servers: Promise<SoakServers>): Promise<SectionResult> {
  const { sandbox, merchant, startedAt } = await servers;
  const tally = new Tally();
  try {
    const settle = startedAt + SETTLE_MS - performance.now();
    if (settle > 0) {
      log(`  letting the servers settle for ${fmt(settle / 1000)} s`);
      await sleep(settle);
    }
    const [token] = await mint(merchant, 'payment', { amount: 1, referenceNo: 'SOAK-PENDING', narration: 'Pending' });
    const pending = await call(`${merchant.url}${MOUNT}/payments`, { body: { msisdn: STAYS_PENDING }, headers: browserHeaders(merchant, token!, true) });
    const pendingRef = { reference: expectStatus(pending, 202, 'pending payment').body.reference as string, token: token! };
    const kinds = journeys(sandbox, merchant, tally, pendingRef);

    const running = new Set<Promise<void>>();
    const started = performance.now();
    let next = 0;
    const samples: { raw: number; collected: number; heap: number; heapTotal: number }[] = [];
    // Collections run on the same beat from the start, so the recorded samples all see the same regime
    // (V8 hands pages back some seconds after a collection, not at once).
    const sample = async () => {
      const raw = await merchant.ask<number>('rss');
      const after = await merchant.ask<NodeJS.MemoryUsage>('memory');
      if (performance.now() - started >= WARMUP_MS - 100) samples.push({ raw, collected: after.rss, heap: after.heapUsed, heapTotal: after.heapTotal });
    };
    let sampling: Promise<void> = Promise.resolve();
    const sampler = setInterval(() => {
      sampling = sampling.then(sample);
    }, SAMPLE_EVERY_MS);
    const starter = setInterval(() => {
      const journey = kinds[next++ % kinds.length]!();
      const tracked = journey.catch((err: unknown) => void tally.unexpected.push(`journey: ${err instanceof Error ? err.message : String(err)}`));
      running.add(tracked);
      void tracked.finally(() => running.delete(tracked));
    }, START_EVERY_MS);
    await sleep(DURATION_MS);
    clearInterval(starter);
    clearInterval(sampler);
    await (sampling = sampling.then(sample));
    log(`  ${next} journeys started; waiting for ${running.size} in flight`);
    await Promise.all([...running]);
    const logs = await merchant.ask<{ byLevel: Record<string, number>; lastErrors: string[] }>('logs');

    const collected = samples.map((s) => s.collected);
    const raw = samples.map((s) => s.raw);
    const first = collected[0]!;
    const last = collected.at(-1)!;
    const growth = (last - first) / first;
    const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;
    const span = (values: number[]) =>
      `first ${mib(values[0]!)}, last ${mib(values.at(-1)!)}, min ${mib(Math.min(...values))}, max ${mib(Math.max(...values))}`;
    const expected = Object.entries(tally.expected).map(([k, n]) => `${n} × ${k}`).join(', ') || 'none';
    return {
      title: 'Soak',
      figures: [
        {
          figure: `Unexpected answers in ${DURATION_MS / 1000} s of mixed traffic (${fmt(tally.requests)} proxy requests, ${fmt(tally.streams)} SSE watchers, ${next} journeys)`,
          value: `${tally.unexpected.length} errors`,
          baseline: `expected by design: ${expected}`,
          target: '0 errors',
          met: tally.unexpected.length === 0,
        },
        {
          figure: `Proxy resident memory after a full collection, every ${SAMPLE_EVERY_MS / 1000} s after a ${WARMUP_MS / 1000} s warm-up`,
          value: `${span(collected)} (${percentChange(first, last)})`,
          baseline: `first sample ${mib(first)}`,
          ratio: `${fmt(last / first, 3)}×`,
          target: 'growth < 10 %',
          met: growth < 0.1,
        },
        {
          figure: 'Proxy resident memory just before each of those collections',
          value: `${span(raw)} (${percentChange(raw[0]!, raw.at(-1)!)})`,
        },
        {
          figure: 'Soak request latency through the proxy (as the bench saw it)',
          value: `p50 ${fmt(percentile(tally.latencies, 50), 1)} ms, p99 ${fmt(percentile(tally.latencies, 99), 1)} ms`,
        },
      ],
      method: [
        `A sandbox process and a merchant process (proxy logger at warn, its lines counted and not printed; every limit raised), started when the bench starts and left idle until the soak, at least ${SETTLE_MS / 1000} s, so that start-up memory is handed back before the first sample. For ${DURATION_MS / 1000} s (${WARMUP_MS / 1000} s of warm-up, then the ${MEASURED_MS / 1000} s measured) the bench starts one journey every ${START_EVERY_MS} ms (open loop, whatever the earlier ones are doing), in turn: an OTP sent to a new number, a wrong code (400 OTP_INVALID, expected), the right code read from the sandbox's outbox (200 and a proof); an account lookup; a payment from ${PAYS} (completes in about 3 s) watched by ${WATCHERS_PER_PAYMENT} SSE streams until COMPLETED, then its status read; three status reads of a payment that stays PENDING; a checkout session created and read. Every token is minted by the merchant process's own route, as its pages would.`,
        'An error is any answer through the proxy other than the one the journey expects (status, and the error code where one is expected), a failed request, or a watcher that does not see COMPLETED within 20 s.',
        `Memory: every ${SAMPLE_EVERY_MS / 1000} s from the start (recorded from the end of the warm-up to the end of the traffic), the merchant process's \`process.memoryUsage().rss\` (asked over IPC), then the same after two forced full collections (\`--expose-gc\`); growth = last / first − 1 of the collected figure. The target is on the collected figure: between collections V8 lets its heap grow before it collects (a larger heap means fewer collections), so RSS as it stands rises and falls with garbage, not with what the proxy keeps.`,
      ],
      notes: [
        `Proxy log lines by pino level: ${JSON.stringify(logs.byLevel)} (40 = warn: access lines of 4xx answers, i.e. the wrong codes; 50 = error).${logs.lastErrors.length ? ` Last error lines: ${logs.lastErrors.join(' ')}` : ''}`,
        `RSS samples after collection (MiB): ${collected.map((r) => fmt(r / 2 ** 20, 1)).join(', ')}; before: ${raw.map((r) => fmt(r / 2 ** 20, 1)).join(', ')}; heap used after collection: ${samples.map((x) => fmt(x.heap / 2 ** 20, 1)).join(', ')}; heap total: ${samples.map((x) => fmt(x.heapTotal / 2 ** 20, 1)).join(', ')} (by design the proxy's memory store keeps every OTP, order, payment and checkout record, and the rate limiter a counter per new token, number and prefix, for their lifetimes, so the heap grows with traffic that brings new ones).`,
        ...(tally.unexpected.length ? [`First unexpected answers: ${tally.unexpected.slice(0, 5).join('; ')}`] : []),
      ],
    };
  } finally {
    await merchant.stop();
    await sandbox.stop();
  }
}
