// The flash sale's upstream reads on a fleet: the same pending payments on one proxy instance, then on three
// instances sharing one Redis, the provider's status reads counted the way the scale section counts them.
// One read per pending payment per interval must hold for the fleet, not only for one instance.
import { DEFAULT_MAX_READS_IN_FLIGHT } from '../../src/proxy/config-relay.js';
import { startRedis } from '../../test/proxy/helpers.js';
import { BENCH_SECRET, browserHeaders, call, mapLimit, mint, MOUNT, sleep } from '../lib/http.js';
import { startProcess, type BenchProcess } from '../lib/processes.js';
import type { Figure, SectionResult } from '../lib/report.js';
import { fmt, times } from '../lib/stats.js';
import { CREATING_AT_ONCE, customerNumber, POLL_INTERVAL_MS, READ_WINDOW_MS, READ_WINDOW_STARTS, SANDBOX_TIME_SCALE } from './scale-run.js';

/** Pending payments of each run (`FLEET_CUSTOMERS` sets fewer for a quick run while working). */
export const FLEET_CUSTOMERS = Number(process.env['FLEET_CUSTOMERS'] ?? 3_000);
/** Instances of the fleet run. */
export const FLEET_INSTANCES = 3;

/** What one run measured. */
interface FleetRun {
  instances: number;
  /** Payments made (each still pending: the sandbox's slowed clock approves none within the run). */
  pending: number;
  /** 503 answers and failed connections on the way, each tried again a second later, by code. */
  refusals: Record<string, number>;
  /** Upstream status reads in a window and its length in ms, averaged over the windows; each window's count. */
  reads: { count: number; windowMs: number; windows: number[] };
  /** Each instance's own status reads over all the windows (its metrics), as a share of the fleet's. */
  shares: number[];
  /** Reads per pending payment per poll interval. */
  perInterval: number;
}

/** The provider's status reads per instance, from each instance's metrics. */
const readsOf = (merchants: BenchProcess[]) => Promise.all(merchants.map((m) => m.ask<number>('statusReads')));

/** Makes the payments (customer i on instance i mod n, minted there too), then counts the reads with every poller at its ceiling. */
async function runFleet(instances: number, log: (line: string) => void): Promise<FleetRun> {
  const redisServer = await startRedis();
  // No callback URL: nothing is approved, and a hint would only wake a poller early.
  const sandbox = await startProcess('sandbox', { timeScale: SANDBOX_TIME_SCALE });
  const merchants: BenchProcess[] = [];
  try {
    for (let k = 0; k < instances; k++) {
      merchants.push(await startProcess('merchant', { sandboxUrl: sandbox.url, tokenSecret: BENCH_SECRET, logLevel: 'warn', redisUrl: redisServer.url }));
    }
    log(`  fleet: ${FLEET_CUSTOMERS} pending payments on ${instances} instance(s)`);
    const refusals: Record<string, number> = {};
    const made = await mapLimit(Array.from({ length: FLEET_CUSTOMERS }, (_, i) => i), CREATING_AT_ONCE, async (i) => {
      const merchant = merchants[i % instances]!;
      const order = { referenceNo: `FLEET-${instances}-${i}`, amount: 12.5, narration: 'Flash sale order' };
      for (let tries = 0, token: string | undefined; tries < 60; tries++, await sleep(1_000)) {
        try {
          token ??= (await mint(merchant, 'payment', order))[0]!;
          const answer = await call(`${merchant.url}${MOUNT}/payments`, { body: { msisdn: customerNumber(i) }, headers: browserHeaders(merchant, token, true) });
          if (answer.status === 202) return true;
          const code = `${answer.status} ${answer.body?.error ?? ''}`.trim();
          refusals[code] = (refusals[code] ?? 0) + 1;
          if (answer.status !== 503) return false;
        } catch (err) {
          const code = `NETWORK (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message})`;
          refusals[code] = (refusals[code] ?? 0) + 1;
        }
      }
      return false;
    });
    const pending = made.filter(Boolean).length;
    // Every poller at its ceiling: a payment's first reads come at 1, 1.6, 2.6… s (the relay's backoff).
    await sleep(2.5 * POLL_INTERVAL_MS);
    log(`  fleet: counting upstream reads over ${READ_WINDOW_MS / 1000} s`);
    const count = async () => ({ n: (await sandbox.ask<Record<string, number>>('counts'))['payment.status'] ?? 0, at: performance.now() });
    const before = await readsOf(merchants);
    const counts: { n: number; at: number }[] = [];
    const seconds = (READ_WINDOW_MS + (READ_WINDOW_STARTS - 1) * 1_000) / 1_000;
    for (let k = 0, start = performance.now(); k <= seconds; k++) {
      await sleep(start + k * 1_000 - performance.now());
      counts.push(await count());
    }
    const after = await readsOf(merchants);
    const windows = Array.from({ length: READ_WINDOW_STARTS }, (_, k) => ({ from: counts[k]!, to: counts[k + READ_WINDOW_MS / 1_000]! }));
    const reads = {
      count: windows.reduce((sum, w) => sum + w.to.n - w.from.n, 0) / windows.length,
      windowMs: windows.reduce((sum, w) => sum + w.to.at - w.from.at, 0) / windows.length,
      windows: windows.map((w) => w.to.n - w.from.n),
    };
    const own = after.map((n, k) => n - before[k]!);
    const total = own.reduce((a, b) => a + b, 0);
    return {
      instances,
      pending,
      refusals,
      reads,
      shares: own.map((n) => (total ? n / total : 0)),
      perInterval: reads.count / ((pending * reads.windowMs) / POLL_INTERVAL_MS),
    };
  } finally {
    for (const merchant of merchants) await merchant.stop();
    await sandbox.stop();
    await redisServer.stop();
  }
}

/** The same pending payments on one instance, then on a fleet of three sharing one Redis. */
export async function scaleFleet(log: (line: string) => void): Promise<SectionResult> {
  const one = await runFleet(1, log);
  const fleet = await runFleet(FLEET_INSTANCES, log);
  const described = (run: FleetRun) => `${fmt(run.perInterval, 3)} (${fmt(run.reads.count)} reads of ${fmt(run.pending)} pending in ${fmt(run.reads.windowMs / 1000, 1)} s)`;
  const figures: Figure[] = [
    {
      figure: `Upstream status reads per pending payment per poll interval, ${FLEET_INSTANCES} instances on one Redis (${fmt(fleet.pending)} pending, made through all of them)`,
      value: described(fleet),
      baseline: `one instance, the same payments: ${described(one)}`,
      ratio: times(fleet.perInterval / one.perInterval, 2),
      target: '≤ 1 across the fleet',
      // Judged as shown, to the third decimal (as the one-instance figure of the scale section).
      met: Number(fleet.perInterval.toFixed(3)) <= 1,
    },
  ];
  const refused = (run: FleetRun) => (Object.keys(run.refusals).length ? JSON.stringify(run.refusals) : 'none');
  return {
    title: 'Scale: a flash sale on three instances',
    figures,
    method: [
      `Two runs one after the other, each on fresh processes: a redis-server (no persistence), the sandbox (its clock ${fmt(SANDBOX_TIME_SCALE)}× slower, so no payment completes within the run, and no callback URL), and the merchant's server (bench/servers/merchant-process.ts: \`createMerchantProxy\` with \`redisUrl\`, the relay at its defaults: 1 s backing off to ${fmt(POLL_INTERVAL_MS / 1000)} s, at most ${fmt(DEFAULT_MAX_READS_IN_FLIGHT)} reads in flight per instance; limits raised), once alone and once as ${FLEET_INSTANCES} processes on the same Redis.`,
      `${fmt(FLEET_CUSTOMERS)} orders in each run, each with its own number (${customerNumber(0)}, ${customerNumber(1)}…) and payment, made with \`POST ${MOUNT}/payments\` ${CREATING_AT_ONCE} at a time; customer i mints its token on and pays through instance i mod n (a balancer's round robin), and one answered 503 tries again a second later. No status stream and no look at a payment: every read counted is the relay's own.`,
      `Reads: the sandbox's \`requestCounts['payment.status']\`, counted as the scale section counts them (${fmt(READ_WINDOW_STARTS)} windows of ${READ_WINDOW_MS / 1000} s starting a second apart, the first ${fmt(2.5 * POLL_INTERVAL_MS / 1000)} s after the last payment was made), their mean divided by pending payments × window / ${fmt(POLL_INTERVAL_MS / 1000)} s. Were every instance reading every pending payment, the fleet's figure would be ${FLEET_INSTANCES} times the one instance's. Each instance's share of the reads comes from its own metrics (\`merchant_proxy_provider_calls_total\`, \`payments.status\` calls sent).`,
    ],
    notes: [
      `The one instance: windows of ${fmt(Math.min(...one.reads.windows))} to ${fmt(Math.max(...one.reads.windows))} reads; answers refused on the way: ${refused(one)}. The fleet: windows of ${fmt(Math.min(...fleet.reads.windows))} to ${fmt(Math.max(...fleet.reads.windows))} reads; each instance's share of them: ${fleet.shares.map((s) => `${fmt(s * 100, 1)} %`).join(', ')}; answers refused on the way: ${refused(fleet)}.`,
    ],
  };
}
