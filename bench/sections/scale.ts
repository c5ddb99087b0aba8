import { backoffDelay } from '../../src/proxy/reconcile/backoff.js';
import { DEFAULT_MAX_READS_IN_FLIGHT } from '../../src/proxy/config-relay.js';
import { MOUNT } from '../lib/http.js';
import type { Figure, SectionResult } from '../lib/report.js';
import { fmt, median, percentile, times } from '../lib/stats.js';
import {
  APPROVALS_PER_SECOND, APPROVED, CREATING_AT_ONCE, CREATION_DEADLINE_MS, CUSTOMERS, customerNumber, DELIVERY_TIMEOUT_MS, POLL_INTERVAL_MS, READ_WINDOW_MS, READ_WINDOW_STARTS,
  runFlashSale, SANDBOX_TIME_SCALE, type CpuShare,
} from './scale-run.js';

/** The goal of RSS growth: 400 MB, in MiB. */
const RSS_GOAL_MIB = 400e6 / 2 ** 20;
const P99_GOAL_MS = 2_000;

/** The relay's mean wait between two reads of a payment at its ceiling (the ceiling itself). */
function meanCeilingDelay(): number {
  const options = { minIntervalMs: 1_000, maxIntervalMs: POLL_INTERVAL_MS };
  const samples = Array.from({ length: 20_000 }, () => backoffDelay(50, options));
  return samples.reduce((a, b) => a + b, 0) / samples.length;
}

const mib = (bytes: number) => bytes / 2 ** 20;
/** A pino line as `level "msg" {its other fields}`, for a note (the fields cut at 240 characters). */
function lineGist(line: string): string {
  const { level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
  for (const noise of ['time', 'pid', 'hostname']) delete fields[noise];
  const rest = JSON.stringify(fields);
  return `${String(level)} "${String(msg)}"${rest === '{}' ? '' : ` ${rest.length > 240 ? `${rest.slice(0, 240)}…` : rest}`}`;
}
const cores = (c: CpuShare) => `merchant ${fmt(c.merchant, 2)}, sandbox ${fmt(c.sandbox, 2)}, redis-server ${fmt(c.redis, 2)}`;

/**
 * Scale: ten thousand status streams on one proxy instance (Redis store, the sandbox on loopback), every
 * payment pending, then all approved while the streams are open. Reports memory, provider-change-to-browser
 * latency, upstream reads per pending payment per poll interval, and whether every event was delivered.
 */
export async function scale(log: (line: string) => void): Promise<SectionResult> {
  const run = await runFlashSale(log);
  const peak = Math.max(...run.rss.samples);
  const at = run.rss.peak;
  const growth = peak - run.rss.idle;
  const perInterval = run.reads.count / ((run.pending * run.reads.windowMs) / POLL_INTERVAL_MS);
  const schedule = meanCeilingDelay();
  const p50 = median(run.latencies);
  const p99 = percentile(run.latencies, 99);
  const delivered = run.latencies.length;
  const { idle, loaded } = run.collected;
  const figures: Figure[] = [
    {
      figure: `Customers whose payment was made and whose status stream was held, within ${CREATION_DEADLINE_MS / 60_000} min`,
      value: `${fmt(run.made)} of ${fmt(CUSTOMERS)} (${fmt(Object.values(run.refusals).reduce((a, b) => a + b, 0))} answers 503 on the way, each tried again${Object.keys(run.failures).length ? `; gave up on ${JSON.stringify(run.failures)}` : ''})`,
      target: `${fmt(CUSTOMERS)} streams on one instance`,
      met: run.made === CUSTOMERS,
    },
    {
      figure: `Status events delivered: ${fmt(run.made)} streams open at once, ${fmt(run.approved)} of their payments approved meanwhile (${APPROVALS_PER_SECOND} a second)`,
      value: `${fmt(delivered)} of ${fmt(run.approved)} COMPLETED delivered; ${fmt(run.pending - run.unexpected.length)} of the ${fmt(run.pending)} streams of pending payments saw exactly their events (PENDING, and COMPLETED when approved)${run.made > run.pending ? `; ${fmt(run.made - run.pending)} payments were no longer pending when their stream opened: ${JSON.stringify(run.notPending)}` : ''}`,
      target: 'all delivered',
      // A stream that brought nothing at all within its minute lost its first event (PENDING) too.
      met: delivered === run.approved && run.unexpected.length === 0 && !Object.keys(run.notPending).some((first) => first.startsWith('no event')),
    },
    {
      figure: 'Proxy resident memory growth, idle to the peak of the sale (sampled every second)',
      value: `+${fmt(growth, 1)} MiB (idle ${fmt(run.rss.idle, 1)} MiB, peak ${fmt(peak, 1)} MiB)`,
      baseline: `idle ${fmt(run.rss.idle, 1)} MiB`,
      ratio: times(peak / run.rss.idle),
      target: `≤ 400 MB (${fmt(RSS_GOAL_MIB, 1)} MiB)`,
      met: growth <= RSS_GOAL_MIB,
    },
    {
      figure: 'Proxy memory after full collections, every payment pending and every stream open, per customer',
      value: `heap ${fmt((loaded.heapUsed - idle.heapUsed) / run.made / 1024, 1)} KiB, RSS ${fmt((loaded.rss - idle.rss) / run.made / 1024, 1)} KiB`,
      baseline: `idle: heap ${fmt(mib(idle.heapUsed), 1)} MiB, RSS ${fmt(mib(idle.rss), 1)} MiB`,
    },
    {
      figure: 'Approval on the phone to COMPLETED at the browser\'s stream (provider change to browser, callback hint on)',
      value: `p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms, max ${fmt(Math.max(...run.latencies))} ms over ${fmt(delivered)} payments`,
      baseline: `${fmt(POLL_INTERVAL_MS)} ms poll interval`,
      ratio: times(p99 / POLL_INTERVAL_MS),
      target: `p99 ≤ ${fmt(P99_GOAL_MS)} ms`,
      met: p99 <= P99_GOAL_MS,
    },
    {
      figure: `Upstream status reads per pending payment per poll interval (${fmt(run.pending)} pending, ${fmt(run.made)} streams, ${READ_WINDOW_MS / 1000} s windows)`,
      value: `${fmt(perInterval, 3)} (${fmt(run.reads.count)} reads, ${fmt((run.reads.count * 1000) / run.reads.windowMs, 1)} a second)`,
      baseline: `1 read per ${fmt(POLL_INTERVAL_MS)} ms; the relay's own schedule at its ceiling waits ${fmt(schedule)} ms on average`,
      ratio: times(perInterval, 3),
      target: '≤ 1',
      // Judged as shown, to the third decimal: the window's two ends are read over IPC, a few ms from the clock's.
      met: Number(perInterval.toFixed(3)) <= 1,
    },
  ];
  const streamsUrl = `${MOUNT}/payments/:reference/events`;
  return {
    title: 'Scale: a flash sale on one instance',
    figures,
    method: [
      `Four processes on the machine's 2 cores: a redis-server (no persistence) as the proxy's store, the sandbox, the merchant's server (Express, \`createMerchantProxy\` with \`redisUrl\`, the relay at its defaults: 1 s backing off to ${fmt(POLL_INTERVAL_MS / 1000)} s, at most ${fmt(DEFAULT_MAX_READS_IN_FLIGHT)} reads in flight, a hint's or a look's first; limits raised, logger at warn with its lines counted), and the bench, which plays the customers. The sandbox posts its payment callbacks to the proxy's callback route (\`paymentCallbackUrl\`), a hint that wakes the payment's poller; the browser's figures come through the public routes only.`,
      `The sale: ${fmt(CUSTOMERS)} orders, each with its own payment token (minted by the merchant's route) and a payment from a number of its own (${customerNumber(0)}, ${customerNumber(1)}…; the sandbox's clock runs ${fmt(SANDBOX_TIME_SCALE)}× slower, so an ordinary number's payment, which completes after 5 s, waits for its approval) made with \`POST ${MOUNT}/payments\`, ${CREATING_AT_ONCE} at a time (a customer answered 503 tries again a second later, as the element offers; one still refused after ${CREATION_DEADLINE_MS / 60_000} min gives up); then one status stream per order, \`GET ${streamsUrl}\` with the order's token, opened 200 at a time by a minimal SSE client over node:http (bench/lib/status-streams.ts: one socket each, as ten thousand browsers), each until its first PENDING event. Every stream stays open to the end. The file-descriptor limit (20,000 here) holds ten thousand sockets on each side without raising.`,
      `Upstream reads: the sandbox's \`requestCounts['payment.status']\` (over IPC, every second), counted in ${fmt(READ_WINDOW_STARTS)} windows of ${READ_WINDOW_MS / 1000} s starting a second apart (every phase of one poll interval; these counts: ${fmt(Math.min(...run.reads.windows))} to ${fmt(Math.max(...run.reads.windows))}), the first ${fmt(2.5 * POLL_INTERVAL_MS / 1000)} s after the last payment was made (every poller at its ceiling), with every payment pending and every stream open; their mean divided by pending payments × window / ${fmt(POLL_INTERVAL_MS / 1000)} s (each window timed by its two counts; judged to the three decimals shown). One window alone moves with where its ends fall in the waves of reads, whose edges move as the store's answers before each read take more or less time. Were the relay reading per stream or per token, it would be above 1.`,
      `Latency: ${fmt(APPROVED)} payments (or all, when fewer were made) chosen at random approved on the sandbox's phone page (\`POST /__sandbox/phone/payments/:referenceId/approve\`, the phones' own pool of 16 connections), ${APPROVALS_PER_SECOND} a second, each at its planned time whatever the others are doing, every stream still open; the clock starts just before the approve request and stops when that payment's stream delivers COMPLETED to the bench. Not delivered: a stream that ends without COMPLETED, or none within ${DELIVERY_TIMEOUT_MS / 1000} s of its approval. Every other stream must have seen PENDING alone and still be open at the end.`,
      'Memory: the merchant process\'s `process.memoryUsage().rss` every second (over IPC), from the end of a 15 s idle settling (the baseline) to the last delivery; growth = the highest sample − the baseline. Per customer: after two forced full collections (`--expose-gc`; RSS read 2 s after them, once the collector has handed back the pages it freed), idle and with everything open, the difference / customers. The streams\' client side runs in the bench process and is not counted.',
      'Where the time goes: each process\'s CPU time over the read window and over the approvals (the servers\' `process.cpuUsage()` over IPC, Redis\'s `INFO cpu`), as a share of one core; Redis\'s commands per second (`INFO stats`); the merchant\'s event-loop delay while approving (`monitorEventLoopDelay`).',
    ],
    notes: [
      `Making ${fmt(run.made)} payments took ${fmt(run.createSec, 1)} s (${fmt(run.made / run.createSec)} a second, ${CREATING_AT_ONCE} at a time; answers 503 on the way, by code: ${JSON.stringify(run.refusals)}), opening their streams ${fmt(run.openSec, 1)} s, approving ${fmt(run.approved)} of them ${fmt(run.approveSec, 1)} s.`,
      `CPU, in cores, over the read window (everything pending and open): ${cores(run.cpu.window)}; while approving: ${cores(run.cpu.approving)} (the machine's load average then: ${fmt(run.load.window, 1)} and ${fmt(run.load.approving, 1)} on 2 cores, most of it other work). Redis commands per second: ${fmt(run.redisPerSec.window)} in the window, ${fmt(run.redisPerSec.approving)} while approving. The merchant's event loop while approving: delay p50 ${fmt(run.loop.p50, 1)} ms, p99 ${fmt(run.loop.p99, 1)} ms, max ${fmt(run.loop.max)} ms.`,
      `The highest RSS sample (${fmt(at.rss, 1)} MiB) came ${fmt(at.atSec)} s into the sale, ${at.phase}: V8's heap then ${fmt(at.heapTotal, 1)} MiB committed, ${fmt(at.heapUsed, 1)} MiB of it used (live objects and garbage not yet collected; the new space ${fmt(at.newSpace, 1)} MiB); the rest of the resident memory, ${fmt(at.rss - at.heapTotal, 1)} MiB, is outside V8's heap (code, native memory of sockets and parsers, malloc).`,
      `Upstream, sampled every second: at most ${fmt(run.upstream.maxConnections)} sockets open to the sandbox at once (the proxy's provider client holds at most 256 per host, the phones' pool 16); the payment interface's circuit open for ${fmt(run.upstream.circuitOpenSec)} s of the sale (\`GET ${MOUNT}/health\`, sampled every second: the worse of its two breakers, customers' calls and the reconciler's reads; the log lines below say which opened).`,
      `Proxy log lines by pino level: ${JSON.stringify(run.logs.byLevel)} (40 warn, 50 error). By message: ${Object.entries(run.logs.byMessage)
        .sort((a, b) => b[1].count - a[1].count)
        .map(([, { count, first }]) => `${fmt(count)} × ${lineGist(first)}`)
        .join('; ')}.`,
      ...(perInterval < 0.9
        ? [`Reads fell behind the relay's own schedule (${fmt(perInterval, 3)} per interval where it plans ${fmt(POLL_INTERVAL_MS / schedule, 3)}): polls wait their turn at the bound of reads in flight, and a poller whose read failed waits longer, so a payment's status is read less often than its interval says.`]
        : []),
      ...(run.undelivered.length ? [`Not delivered (${fmt(run.undelivered.length)}), the first: ${run.undelivered.slice(0, 3).join('; ')}.`] : []),
      ...(run.unexpected.length ? [`Unexpected sequences, the first: ${run.unexpected.slice(0, 3).join('; ')}.`] : []),
    ],
  };
}
