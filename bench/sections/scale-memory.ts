// Where a flash-sale customer's memory goes outside V8's used heap (issue 22), quickly:
// `npx tsx bench/sections/scale-memory.ts [customers] [floor]`. Not part of `npm run bench`: a tool for
// finding what to cut (scale-heap.ts breaks the used heap down by constructor; this one the rest).
//
// The scale section's processes with fewer customers: a warm-up batch, then `customers` payments (each left
// pending), then a status stream for each. After each phase, the merchant's memory after full collections
// (process.memoryUsage(), /proc/PID/smaps_rollup) and the difference per customer; during each phase, the
// peak as it stands (sampled every 250 ms: RSS, V8's committed heap and its new space). With `floor`, the
// same number of SSE streams on a bare node:http server instead of the proxy: what a socket costs anyway
// (EXPRESS=1: in a bare Express app).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { HeapSpaceInfo } from 'node:v8';
import { freePort, startRedis } from '../../test/proxy/helpers.js';
import { BENCH_SECRET, browserHeaders, call, mapLimit, mint, MOUNT, sleep } from '../lib/http.js';
import { startProcess, type BenchProcess } from '../lib/processes.js';
import { openStatusStream, type StatusStream } from '../lib/status-streams.js';
import { customerNumber, SANDBOX_TIME_SCALE } from './scale-run.js';

type Usage = NodeJS.MemoryUsage & { spaces?: HeapSpaceInfo[] };
interface Mark {
  usage: NodeJS.MemoryUsage;
  /** smaps_rollup fields, in bytes. */
  smaps: Record<string, number>;
}

const KiB = 1024;
const MiB = 2 ** 20;

/** /proc/PID/smaps_rollup as bytes by field (Rss, Anonymous, Private_Dirty…). */
function smapsOf(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]!] = Number(m[2]) * KiB;
  }
  return out;
}

/**
 * The memory after full collections, once the collector has handed back what it freed: RSS read at once
 * after `gc()` still holds the pages it evacuated (freed on a background thread), so it is read again 2 s
 * later. Prints RSS before, at once after and 2 s after, as MiB.
 */
async function mark(server: BenchProcess): Promise<Mark> {
  const before = (await server.ask<Usage>('usage')).rss;
  const collected = await server.ask<NodeJS.MemoryUsage>('memory');
  await sleep(2_000);
  const later = await server.ask<Usage>('usage');
  // The heap as the collections left it; the resident figures once the freed pages are handed back.
  const usage = { ...later, heapUsed: collected.heapUsed, external: collected.external, arrayBuffers: collected.arrayBuffers };
  console.log(`  rss before collections ${(before / MiB).toFixed(1)} MiB, right after ${(collected.rss / MiB).toFixed(1)}, 2 s after ${(usage.rss / MiB).toFixed(1)}`);
  const spaces = (usage.spaces ?? []).filter((sp) => sp.space_size > MiB);
  if (spaces.length) console.log(`  V8 spaces, committed/used MiB: ${spaces.map((sp) => `${sp.space_name} ${(sp.space_size / MiB).toFixed(1)}/${(sp.space_used_size / MiB).toFixed(1)}`).join(', ')}`);
  return { usage, smaps: smapsOf(server.pid) };
}

/** Samples `server` every 250 ms until stopped; the highest RSS, committed heap and new space seen. */
function peakSampler(server: BenchProcess) {
  const peak = { rss: 0, heapTotal: 0, heapUsed: 0, newSpace: 0, external: 0 };
  const timer = setInterval(() => {
    void server.ask<Usage>('usage').then((u) => {
      peak.rss = Math.max(peak.rss, u.rss);
      peak.heapTotal = Math.max(peak.heapTotal, u.heapTotal);
      peak.heapUsed = Math.max(peak.heapUsed, u.heapUsed);
      peak.external = Math.max(peak.external, u.external);
      peak.newSpace = Math.max(peak.newSpace, u.spaces?.find((s) => s.space_name === 'new_space')?.space_size ?? 0);
    }, () => undefined);
  }, 250);
  return { peak, stop: () => clearInterval(timer) };
}

function perCustomer(label: string, a: Mark, b: Mark, n: number): void {
  const u = (f: keyof NodeJS.MemoryUsage) => `${f} ${((b.usage[f] - a.usage[f]) / n / KiB).toFixed(1)}`;
  const s = (f: string) => `${f} ${(((b.smaps[f] ?? 0) - (a.smaps[f] ?? 0)) / n / KiB).toFixed(1)}`;
  console.log(`${label}, KiB per customer after collections: ${(['heapUsed', 'heapTotal', 'external', 'arrayBuffers', 'rss'] as const).map(u).join(', ')}; smaps ${['Anonymous', 'Private_Dirty'].map(s).join(', ')}`);
  console.log(`  (then: heapUsed ${(b.usage.heapUsed / MiB).toFixed(1)} MiB, heapTotal ${(b.usage.heapTotal / MiB).toFixed(1)} MiB, rss ${(b.usage.rss / MiB).toFixed(1)} MiB)`);
}

function peakLine(label: string, base: Mark, peak: ReturnType<typeof peakSampler>['peak']): void {
  const d = (v: number, b: number) => `${(v / MiB).toFixed(1)} MiB (+${((v - b) / MiB).toFixed(1)})`;
  console.log(`  peak during ${label}: rss ${d(peak.rss, base.usage.rss)}, heapTotal ${d(peak.heapTotal, base.usage.heapTotal)}, heapUsed ${d(peak.heapUsed, base.usage.heapUsed)}, new space ${(peak.newSpace / MiB).toFixed(1)} MiB, external ${(peak.external / MiB).toFixed(1)} MiB`);
}

/**
 * A bare node:http server holding SSE streams (an event, then a heartbeat timer each): the floor. With
 * EXPRESS=1, the same handler in an Express app: what the framework adds to a held request.
 */
const BARE_SSE = `
const http = require('node:http');
const handle = (req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' });
  res.write('event: status\\nid: 1\\ndata: {"status":"PENDING"}\\n\\n');
  const beat = setInterval(() => res.write(': heartbeat\\n\\n'), 20000).unref();
  res.on('close', () => clearInterval(beat));
};
const server = process.env.EXPRESS ? require('express')().get('/events', handle).listen(0, '127.0.0.1', ready) : http.createServer(handle).listen(0, '127.0.0.1', ready);
function ready() {
  process.on('message', (m) => { if (m.ask === 'memory') { gc(); gc(); } process.send({ id: m.id, answer: process.memoryUsage() }); });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: { url: 'http://127.0.0.1:' + server.address().port } });
}`;

async function bareServer(): Promise<BenchProcess & { url: string }> {
  const child = spawn(process.execPath, ['--expose-gc', ...(process.env['BENCH_NODE_ARGS']?.split(/\s+/).filter(Boolean) ?? []), '-e', BARE_SSE], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, (v: unknown) => void>();
  let next = 1;
  const url = await new Promise<string>((resolve) =>
    child.on('message', (m: { ready?: { url: string }; id?: number; answer?: unknown }) => {
      if (m.ready) resolve(m.ready.url);
      else pending.get(m.id!)?.(m.answer);
    }),
  );
  return {
    url,
    pid: child.pid!,
    ask: <T>(question: string) => new Promise<T>((resolve) => {
      const id = next++;
      pending.set(id, resolve as (v: unknown) => void);
      child.send({ id, ask: question });
    }),
    stop: async () => void child.disconnect(),
  };
}

async function floor(customers: number): Promise<void> {
  const server = await bareServer();
  const streams: StatusStream[] = [];
  const open = (n: number) => mapLimit(Array.from({ length: n }), 200, async () => {
    const stream = openStatusStream(`${server.url}/events`, 'x');
    streams.push(stream);
    await stream.arrival('PENDING');
  });
  try {
    await open(200);
    await sleep(2_000);
    const m0 = await mark(server);
    await open(customers);
    await sleep(2_000);
    perCustomer(`bare ${process.env['EXPRESS'] ? 'Express' : 'node:http'} SSE, ${customers} streams`, m0, await mark(server), customers);
  } finally {
    for (const s of streams) s.close();
    await server.stop();
  }
}

async function proxy(customers: number): Promise<void> {
  const redisServer = await startRedis();
  const port = await freePort();
  const sandbox = await startProcess('sandbox', { timeScale: SANDBOX_TIME_SCALE, paymentCallbackUrl: `http://127.0.0.1:${port}${MOUNT}/callbacks/payments/{callbackId}` });
  const merchant = await startProcess('merchant', { sandboxUrl: sandbox.url, tokenSecret: BENCH_SECRET, port, logLevel: 'warn', redisUrl: redisServer.url });
  const streams: StatusStream[] = [];
  const pay = (from: number, n: number) => mapLimit(Array.from({ length: n }, (_, i) => from + i), 100, async (i) => {
    const [token] = await mint(merchant, 'payment', { referenceNo: `MEM-${i}`, amount: 12.5, narration: 'Flash sale order' });
    const answer = await call(`${merchant.url}${MOUNT}/payments`, { body: { msisdn: customerNumber(i) }, headers: browserHeaders(merchant, token!, true) });
    if (answer.status !== 202) throw new Error(`payment ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return { token: token!, reference: answer.body.reference as string };
  });
  const watch = (made: { token: string; reference: string }[]) => mapLimit(made, 200, async ({ token, reference }) => {
    const stream = openStatusStream(`${merchant.url}${MOUNT}/payments/${encodeURIComponent(reference)}/events`, token);
    streams.push(stream);
    await stream.arrival('PENDING');
  });
  try {
    await sleep(5_000);
    const idle = await mark(merchant);
    await watch(await pay(0, 200));
    await sleep(12_000);
    const m0 = await mark(merchant);
    console.log(`idle: rss ${(idle.usage.rss / MiB).toFixed(1)} MiB, heapUsed ${(idle.usage.heapUsed / MiB).toFixed(1)}, heapTotal ${(idle.usage.heapTotal / MiB).toFixed(1)}; after 200 warm-up customers: rss ${(m0.usage.rss / MiB).toFixed(1)} MiB`);
    let sampler = peakSampler(merchant);
    const made = await pay(1_000_000, customers);
    sampler.stop();
    peakLine('payments', m0, sampler.peak);
    await sleep(12_000);
    const m1 = await mark(merchant);
    perCustomer(`${customers} pending payments`, m0, m1, customers);
    sampler = peakSampler(merchant);
    await watch(made);
    sampler.stop();
    peakLine('streams', m1, sampler.peak);
    await sleep(5_000);
    const m2 = await mark(merchant);
    perCustomer(`${customers} streams on them`, m1, m2, customers);
    perCustomer('both', m0, m2, customers);
  } finally {
    for (const stream of streams) stream.close();
    await merchant.stop();
    await sandbox.stop();
    await redisServer.stop();
  }
}

const customers = Number(process.argv[2] ?? 2_000);
await (process.argv[3] === 'floor' ? floor(customers) : proxy(customers));
