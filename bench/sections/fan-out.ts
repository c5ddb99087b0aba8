import { backoffDelay } from '../../src/proxy/reconcile/backoff.js';
import { freePort } from '../../test/proxy/helpers.js';
import { openStream, type OpenStream } from '../../test/proxy/sse-client.js';
import { BENCH_SECRET, browserHeaders, call, expectStatus, mapLimit, mint, MOUNT, sleep } from '../lib/http.js';
import { startProcess } from '../lib/processes.js';
import type { Figure, SectionResult } from '../lib/report.js';
import { fmt, median, times } from '../lib/stats.js';

const PAYMENTS = 100;
const WATCHERS_PER_PAYMENT = 10;
/** The relay's interval, fixed (min = max) so that the time to a final state is measurable. */
const INTERVAL_MS = 1_000;
const READ_WINDOW_MS = 10_000;
/** A payment that stays PENDING until approved on the sandbox's phone page. */
const STAYS_PENDING = '233260000004';

interface Watched {
  reference: string;
  referenceId: string;
  streams: OpenStream[];
}

/** The relay's mean wait between two polls of one reference at this interval, from its own backoff schedule. */
function meanPollDelay(): number {
  const samples = Array.from({ length: 20_000 }, (_, i) => backoffDelay(5 + (i % 5), { minIntervalMs: INTERVAL_MS, maxIntervalMs: INTERVAL_MS }));
  return samples.reduce((a, b) => a + b, 0) / samples.length;
}

/**
 * One fan-out: a sandbox and a merchant process (relay interval fixed at 1 s), 100 pending payments,
 * 10 SSE watchers each (each with its own token, as 10 browsers would), then every payment approved on
 * the phone page; with `hint`, the sandbox posts its status callback to the proxy.
 */
async function fanOutRun(log: (line: string) => void, hint: boolean, measure: boolean) {
  const port = hint ? await freePort() : 0;
  const sandbox = await startProcess('sandbox', hint ? { paymentCallbackUrl: `http://127.0.0.1:${port}${MOUNT}/callbacks/payments/{callbackId}` } : {});
  const merchant = await startProcess('merchant', {
    sandboxUrl: sandbox.url,
    tokenSecret: BENCH_SECRET,
    port,
    logLevel: 'silent',
    relay: { minIntervalMs: INTERVAL_MS, maxIntervalMs: INTERVAL_MS, deadlineMs: 15 * 60_000 },
  });
  const opened: OpenStream[] = [];
  try {
    const orders = Array.from({ length: PAYMENTS }, (_, i) => ({ referenceNo: `FAN-${hint ? 'H' : 'P'}-${i}`, amount: 12.5, narration: 'Bench order' }));
    const created = await mapLimit(orders, 10, async (order) => {
      const tokens = await mint(merchant, 'payment', order, WATCHERS_PER_PAYMENT);
      const answer = await call(`${merchant.url}${MOUNT}/payments`, { body: { msisdn: STAYS_PENDING }, headers: browserHeaders(merchant, tokens[0]!, true) });
      return { tokens, reference: expectStatus(answer, 202, 'payment').body.reference as string };
    });
    const upstream = new Map(
      ((await call(`${sandbox.url}/__sandbox/payments`)).body.payments as { referenceNo: string; referenceId: string }[]).map((p) => [p.referenceNo, p.referenceId]),
    );

    await sleep(1_500);
    const before = measure ? await merchant.ask<NodeJS.MemoryUsage>('memory') : null;
    log(`  ${hint ? 'callback hint on: ' : ''}opening ${PAYMENTS * WATCHERS_PER_PAYMENT} watchers`);
    const watched: Watched[] = await mapLimit(created, 5, async ({ tokens, reference }) => {
      const streams = await Promise.all(
        tokens.map(async (token) => {
          const stream = await openStream(`${merchant.url}${MOUNT}/payments/${encodeURIComponent(reference)}/events`, token);
          opened.push(stream);
          if (stream.status !== 200) throw new Error(`watcher refused: ${stream.status} ${JSON.stringify(stream.body)}`);
          await stream.waitFor((e) => e.data?.status === 'PENDING', 30_000);
          return stream;
        }),
      );
      return { reference, referenceId: upstream.get(reference)!, streams };
    });
    await sleep(1_500);
    const during = measure ? await merchant.ask<NodeJS.MemoryUsage>('memory') : null;

    let reads: { perSecond: number; expected: number } | null = null;
    if (measure) {
      log(`  upstream status reads over ${READ_WINDOW_MS / 1000} s`);
      const count = async () => (await sandbox.ask<Record<string, number>>('counts'))['payment.status'] ?? 0;
      const c0 = await count();
      const t0 = performance.now();
      await sleep(READ_WINDOW_MS);
      const c1 = await count();
      const seconds = (performance.now() - t0) / 1000;
      reads = { perSecond: (c1 - c0) / seconds, expected: (PAYMENTS * 1000) / meanPollDelay() };
    }

    log(`  approving ${PAYMENTS} payments on the phone page`);
    const seen = watched.map((w) => w.streams.map((s) => s.waitFor((e) => e.data?.status === 'COMPLETED', 30_000).then(() => performance.now())));
    const approvedAt: number[] = [];
    for (const w of watched) {
      approvedAt.push(performance.now());
      expectStatus(await call(`${sandbox.url}/__sandbox/phone/payments/${encodeURIComponent(w.referenceId)}/approve`, { method: 'POST' }), 303, 'approve');
    }
    const lastSeen = await Promise.all(seen.map((arrivals) => Promise.all(arrivals).then((times) => Math.max(...times))));
    const delays = lastSeen.map((t, i) => t - approvedAt[i]!);
    return { delays, reads, memory: before && during ? { before, during } : null };
  } finally {
    for (const stream of opened) stream.close();
    await merchant.stop();
    await sandbox.stop();
  }
}

/** Status-relay fan-out: upstream reads against pollers, time to the last watcher, memory per watcher. */
export async function fanOut(log: (line: string) => void): Promise<SectionResult> {
  const polled = await fanOutRun(log, false, true);
  const hinted = await fanOutRun(log, true, false);
  const watchers = PAYMENTS * WATCHERS_PER_PAYMENT;
  const target = INTERVAL_MS + 100;
  const figures: Figure[] = [];
  if (polled.reads) {
    const ratio = polled.reads.perSecond / polled.reads.expected;
    figures.push({
      figure: `Upstream status reads with ${fmt(watchers)} watchers on ${PAYMENTS} pending payments`,
      value: `${fmt(polled.reads.perSecond, 1)} reads/s (${fmt(polled.reads.perSecond / watchers, 3)} per watcher)`,
      baseline: `${fmt(polled.reads.expected, 1)} reads/s expected of ${PAYMENTS} pollers`,
      ratio: times(ratio),
      target: 'within 10 % of 1',
      met: Math.abs(ratio - 1) <= 0.1,
    });
  }
  for (const [label, run, goal] of [
    ['relay polling only (no callback)', polled, target],
    ['with the callback hint', hinted, undefined],
  ] as const) {
    const max = Math.max(...run.delays);
    figures.push({
      figure: `Approval to the last of a payment's ${WATCHERS_PER_PAYMENT} watchers seeing COMPLETED, ${label}`,
      value: `median ${fmt(median(run.delays))} ms, max ${fmt(max)} ms over ${PAYMENTS} payments`,
      baseline: `${fmt(INTERVAL_MS)} ms poll interval`,
      ratio: times(max / INTERVAL_MS),
      ...(goal ? { target: `max ≤ ${fmt(goal)} ms (interval + 100 ms)`, met: max <= goal } : {}),
    });
  }
  if (polled.memory) {
    const { before, during } = polled.memory;
    figures.push({
      figure: 'Proxy memory per SSE watcher',
      value: `heap ${fmt((during.heapUsed - before.heapUsed) / watchers / 1024, 1)} KiB, RSS ${fmt((during.rss - before.rss) / watchers / 1024, 1)} KiB`,
      baseline: `0 watchers: heap ${fmt(before.heapUsed / 2 ** 20, 1)} MiB, RSS ${fmt(before.rss / 2 ** 20, 1)} MiB`,
    });
  }
  return {
    title: 'Status-relay fan-out',
    figures,
    method: [
      `A sandbox process and a merchant process (proxy logger silent, limits raised, relay interval fixed at ${INTERVAL_MS} ms: \`relay.minIntervalMs = maxIntervalMs = ${INTERVAL_MS}\`). ${PAYMENTS} payments from ${STAYS_PENDING} (stays PENDING), each with ${WATCHERS_PER_PAYMENT} watchers: \`GET ${MOUNT}/payments/:reference/events\` opened by the bench with test/proxy/sse-client.ts, each watcher with its own token of the order (ten browsers), each waiting for its first PENDING event.`,
      `Upstream reads: the sandbox's \`requestCounts['payment.status']\` (asked over IPC) before and after a ${READ_WINDOW_MS / 1000} s window with every watcher open. Expected: ${PAYMENTS} pollers each waiting the mean of the relay's own \`backoffDelay()\` at this interval (sampled; at the 1 s ceiling a poller waits the ceiling itself: ${fmt(meanPollDelay())} ms on average). Were the relay polling per watcher, the reads would be ${WATCHERS_PER_PAYMENT}× that.`,
      `Time to the last watcher: every payment approved on the phone page (\`POST /__sandbox/phone/payments/:referenceId/approve\`), one after another; the clock starts just before the approve request is sent (its own round trip, a few ms, is counted) and stops when the last of the payment's ${WATCHERS_PER_PAYMENT} streams has delivered COMPLETED to the bench. Without a callback URL the relay's next poll finds it; then a second sandbox/proxy pair with the sandbox's \`paymentCallbackUrl\` set to the proxy's callback route, where the hint wakes the poller (after the relay's 250 ms least gap between two polls of one reference).`,
      'Memory per watcher: the merchant process\'s `process.memoryUsage()` after two full collections (`--expose-gc`), with the 100 payments and no watcher, then with all 1,000 open, divided by 1,000. The watchers run in the bench process, so their memory is not counted.',
    ],
    notes: [],
  };
}
