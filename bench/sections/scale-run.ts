// The flash sale of the scale section: ten thousand customers, each with a payment waiting on the phone and
// its status stream open, on one proxy instance with a Redis store; then payments approved, at a steady
// rate, while every stream is open. What it records, section scale.ts reports.
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { freePort, startRedis } from '../../test/proxy/helpers.js';
import { BENCH_SECRET, browserHeaders, call, mapLimit, mint, MOUNT, sleep } from '../lib/http.js';
import { collectedMemory, rssSampler, type PeakSample } from '../lib/merchant-memory.js';
import { startProcess, type BenchProcess } from '../lib/processes.js';
import { openStatusStream, type StatusStream } from '../lib/status-streams.js';

/** The customers: one order, one pending payment and one open status stream each (`SCALE_CUSTOMERS` sets fewer for a quick run while working). */
export const CUSTOMERS = Number(process.env['SCALE_CUSTOMERS'] ?? 10_000);
/** The sandbox's clock, slowed down: an ordinary number's payment completes after 5 s × this, so it waits for its approval. */
export const SANDBOX_TIME_SCALE = 1_000;
/** The customer's own number: MTN's 024 and seven digits of the customer's index (the proxy's limits count per number). */
export const customerNumber = (i: number) => `23324${String(1_000_000 + i).padStart(7, '0')}`;
/** The relay's polling ceiling (its default): the poll interval of a payment that has waited a while. */
export const POLL_INTERVAL_MS = 10_000;
/**
 * The window in which upstream reads are counted, every payment pending and every stream open: six intervals,
 * since payments made together are read in waves a poll interval apart that their jitter spreads only slowly,
 * and a window of three counted one wave more or less (1.09 and 1.02 reads per interval from one run's waves).
 */
export const READ_WINDOW_MS = 6 * POLL_INTERVAL_MS;
/**
 * The reads are counted in windows of READ_WINDOW_MS starting a second apart over one poll interval, and
 * averaged: a payment's reads are an interval apart from the start of one pass to the next, but each reaches
 * the provider after the pass's store calls, whose time varies with the load, so the waves' edges move, and
 * one window's count moved with where its two ends fell in them (one run's windows: 0.960 to 0.985; the run
 * before read 1.016 from one window). Windows over every phase of the interval count each wave as often.
 */
export const READ_WINDOW_STARTS = POLL_INTERVAL_MS / 1_000 + 1;
/** The payments approved while every stream is open (the others stay pending to the end). */
export const APPROVED = 2_000;
/** Approvals per second, one after another whatever the proxy is doing (open loop). */
export const APPROVALS_PER_SECOND = 20;
/** How long the customers may take to make their payments; those still refused by then give up. */
export const CREATION_DEADLINE_MS = 10 * 60_000;
/** Customers making their payment at the same moment while the sale fills up. */
export const CREATING_AT_ONCE = 100;
/** How long a stream may take to deliver COMPLETED after its approval before it counts as not delivered. */
export const DELIVERY_TIMEOUT_MS = 60_000;

/** A process's CPU time over a phase, as a share of one core. */
export interface CpuShare {
  merchant: number;
  sandbox: number;
  redis: number;
}

/** What the flash sale measured. */
export interface ScaleRun {
  /** Merchant RSS (MiB): idle before the sale, and every second from then on. */
  rss: { idle: number; samples: number[]; peak: PeakSample };
  /** Merchant memory after two full collections: idle, and with every payment pending and every stream open. */
  collected: { idle: NodeJS.MemoryUsage; loaded: NodeJS.MemoryUsage };
  /** Seconds taken to create the payments, and to open the streams. */
  createSec: number;
  /** 503 answers to `POST /payments` (and failed connections) while the payments were made, each tried again after 1 s, by code. */
  refusals: Record<string, number>;
  /** Customers whose payment was made (and whose stream was opened) by the deadline. */
  made: number;
  /** Of those, the payments still PENDING when their stream opened, and the others by their first event. */
  pending: number;
  notPending: Record<string, number>;
  /** Payments approved while the streams were open. */
  approved: number;
  openSec: number;
  /** Upstream status reads in a window and its length in ms, averaged over the windows; each window's count. */
  reads: { count: number; windowMs: number; windows: number[] };
  /** Redis commands per second in the window (with every stream open) and while approving. */
  redisPerSec: { window: number; approving: number };
  cpu: { window: CpuShare; approving: CpuShare };
  /** The machine's 1-minute load average as the window and the approvals began (other work shares its cores). */
  load: { window: number; approving: number };
  /**
   * The upstream side, sampled every second through the sale: the most sockets open to the sandbox at once
   * (the proxy's provider client holds at most its `maxConnections` per host), and the seconds its payment circuit breaker
   * was open (`GET /health`).
   */
  upstream: { maxConnections: number; circuitOpenSec: number };
  /** Event-loop delay of the merchant process while approving (ms). */
  loop: { p50: number; p99: number; max: number };
  /** Approval to COMPLETED at the stream, ms, for each delivered payment. */
  latencies: number[];
  /** Streams that did not deliver COMPLETED, with why. */
  undelivered: string[];
  /** Streams of pending payments that received anything but PENDING then COMPLETED (approved), or PENDING and stayed open (the others). */
  unexpected: string[];
  approveSec: number;
  logs: { byLevel: Record<string, number>; lastErrors: string[]; lastWarnings: string[]; byMessage: Record<string, { count: number; first: string }> };
  /** Answers to `POST /payments` other than 202 and 503, by status and code: each of those customers gave up. */
  failures: Record<string, number>;
}

/** Redis's own count of the commands it processed. */
async function redisCommands(redis: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1] ?? NaN);
}

/** CPU seconds of a process: the bench's servers by IPC, Redis by its INFO. */
async function cpuSeconds(merchant: BenchProcess, sandbox: BenchProcess, redis: Redis) {
  const seconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
  const info = await redis.info('cpu');
  const redisCpu = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]);
  return { merchant: seconds(await merchant.ask('cpu')), sandbox: seconds(await sandbox.ask('cpu')), redis: redisCpu, at: performance.now() };
}
type CpuMark = Awaited<ReturnType<typeof cpuSeconds>>;
const share = (a: CpuMark, b: CpuMark): CpuShare => {
  const sec = (b.at - a.at) / 1000;
  return { merchant: (b.merchant - a.merchant) / sec, sandbox: (b.sandbox - a.sandbox) / sec, redis: (b.redis - a.redis) / sec };
};

/**
 * The customers' phones approving on the sandbox's phone page: a pool of its own, bounded, so that the
 * bench's side of the test never floods the sandbox with connections of its own (an unbounded pool opens a
 * socket per approval while the sandbox is slow to answer).
 */
const phones = new Agent({ connections: 16 });

/** `items` in a random order (Fisher-Yates). */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** `promise`, or a rejection after `ms` saying nothing came within `ms` of `what`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`nothing within ${ms / 1000} s of ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs the flash sale on fresh processes (a redis-server, the sandbox, the merchant's server) and stops them. */
export async function runFlashSale(log: (line: string) => void): Promise<ScaleRun> {
  const redisServer = await startRedis();
  const redis = new Redis(redisServer.url, { lazyConnect: true });
  await redis.connect();
  const port = await freePort();
  const sandbox = await startProcess('sandbox', {
    timeScale: SANDBOX_TIME_SCALE,
    paymentCallbackUrl: `http://127.0.0.1:${port}${MOUNT}/callbacks/payments/{callbackId}`,
  });
  const merchant = await startProcess('merchant', { sandboxUrl: sandbox.url, tokenSecret: BENCH_SECRET, port, logLevel: 'warn', redisUrl: redisServer.url });
  const streams: StatusStream[] = [];
  const rss = rssSampler(merchant);
  const phase = (name: string) => (rss.state.phase = name);
  const upstream = { maxConnections: 0, circuitOpenSec: 0 };
  const sampler = setInterval(() => {
    rss.sample();
    void sandbox.ask<number>('connections').then((n) => (upstream.maxConnections = Math.max(upstream.maxConnections, n)), () => undefined);
    void call(`${merchant.url}${MOUNT}/health`).then((a) => a.body?.upstream?.circuits?.payment === 'open' && upstream.circuitOpenSec++, () => undefined);
  }, 1_000);
  try {
    // A fresh process hands back start-up memory over its first seconds (bench/sections/soak.ts).
    await sleep(15_000);
    const idleCollected = await collectedMemory(merchant);
    const idleRss = (await merchant.ask<number>('rss')) / 2 ** 20;
    rss.reset();
    Object.assign(upstream, { maxConnections: 0, circuitOpenSec: 0 });

    log(`  scale: ${CUSTOMERS} orders and their pending payments`);
    phase('making payments');
    const orders = Array.from({ length: CUSTOMERS }, (_, i) => ({ referenceNo: `SALE-${i}`, amount: 12.5, narration: 'Flash sale order' }));
    const created0 = performance.now();
    const refusals: Record<string, number> = {};
    const failures: Record<string, number> = {};
    let made = 0;
    const deadline = created0 + CREATION_DEADLINE_MS;
    const attempts = await mapLimit(orders, CREATING_AT_ONCE, async (order, i) => {
      // A customer told "the service is busy" (503), or whose connection failed, tries again a second later,
      // as the element offers, until the sale's deadline.
      for (let token: string | undefined; performance.now() <= deadline; await sleep(1_000)) {
        let answer;
        try {
          token ??= (await mint(merchant, 'payment', order))[0]!;
          answer = await call(`${merchant.url}${MOUNT}/payments`, { body: { msisdn: customerNumber(i) }, headers: browserHeaders(merchant, token, true) });
        } catch (err) {
          const code = `NETWORK (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message})`;
          refusals[code] = (refusals[code] ?? 0) + 1;
          continue;
        }
        if (answer.status === 202) {
          if (++made % 1_000 === 0) log(`  scale: ${made} payments made (${JSON.stringify(refusals)} refused on the way)`);
          return { token, reference: answer.body.reference as string };
        }
        if (answer.status !== 503) {
          // Not "busy, try again": the element shows the error and this customer does not pay. Counted, and
          // the sale goes on (the proxy's log lines say why).
          const code = `${answer.status} ${answer.body?.error ?? ''}`.trim();
          failures[code] = (failures[code] ?? 0) + 1;
          log(`  scale: customer ${i} answered ${code}; gives up`);
          return null;
        }
        refusals[answer.body?.error] = (refusals[answer.body?.error] ?? 0) + 1;
      }
      return null;
    });
    const customers = attempts.filter((c) => c !== null);
    const createSec = (performance.now() - created0) / 1000;
    const createdAt = performance.now();

    log(`  scale: opening ${customers.length} status streams`);
    phase('opening streams');
    const opened0 = performance.now();
    // A payment the proxy gave up on meanwhile (VOID: its initiation timed out and the provider never had
    // it) opens on that state, and a stream may bring nothing at all: counted, never approved.
    const firstEvents = await mapLimit(customers, 200, async ({ token, reference }, i) => {
      const stream = openStatusStream(`${merchant.url}${MOUNT}/payments/${encodeURIComponent(reference)}/events`, token);
      streams[i] = stream;
      await within(stream.arrival('PENDING'), DELIVERY_TIMEOUT_MS, 'the request').catch(() => undefined);
      const first = stream.log.events[0]?.status;
      return first ?? `no event within ${DELIVERY_TIMEOUT_MS / 1000} s (HTTP ${stream.log.status || 'no answer'}${stream.log.error ? `, ${stream.log.error}` : stream.log.endedAt !== undefined ? ', ended' : ''})`;
    });
    const notPending: Record<string, number> = {};
    for (const first of firstEvents) if (first !== 'PENDING') notPending[first] = (notPending[first] ?? 0) + 1;
    const pending = customers.flatMap((_, i) => (firstEvents[i] === 'PENDING' ? [i] : []));
    const openSec = (performance.now() - opened0) / 1000;
    phase('everything open (before the read window)');
    const referenceIds = new Map(
      ((await call(`${sandbox.url}/__sandbox/payments`)).body.payments as { referenceNo: string; referenceId: string }[]).map((p) => [p.referenceNo, p.referenceId]),
    );

    // Every poller at its ceiling: the first reads of a payment come at 1, 1.6, 2.6… s (the relay's backoff).
    await sleep(Math.max(0, createdAt + 2.5 * POLL_INTERVAL_MS - performance.now()));
    log(`  scale: counting upstream reads over ${READ_WINDOW_MS / 1000} s`);
    phase('everything open (the read window)');
    // The reads' window is timed by the counts themselves: the other figures' asks that follow each count take
    // a varying while, and at a thousand reads a second a few hundred milliseconds more or less is a read in a
    // hundred more or less per payment.
    const count = async () => ({ n: (await sandbox.ask<Record<string, number>>('counts'))['payment.status'] ?? 0, at: performance.now() });
    const [r0, cpu0, load0] = [await redisCommands(redis), await cpuSeconds(merchant, sandbox, redis), loadavg()[0]!];
    // The count every second, from the first window's start to the last one's end (see READ_WINDOW_STARTS).
    const counts: { n: number; at: number }[] = [];
    const seconds = (READ_WINDOW_MS + (READ_WINDOW_STARTS - 1) * 1_000) / 1_000;
    for (let k = 0, start = performance.now(); k <= seconds; k++) {
      await sleep(start + k * 1_000 - performance.now());
      counts.push(await count());
    }
    const windows = Array.from({ length: READ_WINDOW_STARTS }, (_, k) => ({ from: counts[k]!, to: counts[k + READ_WINDOW_MS / 1_000]! }));
    const [r1, cpu1] = [await redisCommands(redis), await cpuSeconds(merchant, sandbox, redis)];
    const windowMs = cpu1.at - cpu0.at;
    phase('the bench\'s forced full collections');
    const loaded = await collectedMemory(merchant);
    phase('approving');

    log(`  scale: approving ${APPROVED} payments, ${APPROVALS_PER_SECOND} a second`);
    await merchant.ask('loopDelay');
    const latencies: number[] = [];
    const undelivered: string[] = [];
    const approved0 = performance.now();
    const approved = new Set(shuffled(pending).slice(0, APPROVED));
    const deliveries = [...approved].map((i) => ({ ...customers[i]!, stream: streams[i]! })).map(async ({ reference, stream }, i) => {
      await sleep(approved0 + (i * 1000) / APPROVALS_PER_SECOND - performance.now());
      const start = performance.now();
      try {
        const approve = await request(`${sandbox.url}/__sandbox/phone/payments/${encodeURIComponent(referenceIds.get(reference)!)}/approve`, { method: 'POST', dispatcher: phones });
        await approve.body.dump();
        if (approve.statusCode !== 303) throw new Error(`approve: expected 303, got ${approve.statusCode}`);
        latencies.push((await within(stream.arrival('COMPLETED'), DELIVERY_TIMEOUT_MS, 'the approval')) - start);
      } catch (err) {
        undelivered.push(`${reference}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    const [cpu2, load2] = [await cpuSeconds(merchant, sandbox, redis), loadavg()[0]!];
    const r2 = await redisCommands(redis);
    await Promise.all(deliveries);
    const approveSec = (performance.now() - approved0) / 1000;
    const [cpu3, r3, loop] = [await cpuSeconds(merchant, sandbox, redis), await redisCommands(redis), await merchant.ask<ScaleRun['loop']>('loopDelay')];
    // An approved payment's stream: PENDING, then COMPLETED, then the end. Any other: PENDING, and still open.
    const unexpected = pending
      .map((i) => ({ i, s: streams[i]! }))
      .filter(({ i, s }) => s.log.events.map((e) => e.status).join() !== (approved.has(i) ? 'PENDING,COMPLETED' : 'PENDING') || (!approved.has(i) && s.log.endedAt !== undefined))
      .map(({ s }) => `${s.log.events.map((e) => e.status).join(',') || 'nothing'} (HTTP ${s.log.status}${s.log.error ? `, ${s.log.error}` : s.log.endedAt !== undefined ? ', ended' : ''})`);
    return {
      rss: { idle: idleRss, samples: [...rss.samples], peak: { ...rss.peak } },
      collected: { idle: idleCollected, loaded },
      createSec,
      refusals,
      made: customers.length,
      pending: pending.length,
      notPending,
      approved: approved.size,
      openSec,
      reads: {
        count: windows.reduce((sum, w) => sum + w.to.n - w.from.n, 0) / windows.length,
        windowMs: windows.reduce((sum, w) => sum + w.to.at - w.from.at, 0) / windows.length,
        windows: windows.map((w) => w.to.n - w.from.n),
      },
      redisPerSec: { window: ((r1 - r0) * 1000) / windowMs, approving: ((r3 - r2) * 1000) / (cpu3.at - cpu2.at) },
      cpu: { window: share(cpu0, cpu1), approving: share(cpu2, cpu3) },
      load: { window: load0, approving: load2 },
      loop,
      upstream,
      latencies,
      undelivered,
      unexpected,
      approveSec,
      logs: await merchant.ask('logs'),
      failures,
    };
  } finally {
    clearInterval(sampler);
    for (const stream of streams) stream.close();
    await merchant.stop();
    await sandbox.stop();
    redis.disconnect();
    await redisServer.stop();
  }
}
