// Where a flash-sale customer's memory goes in the proxy (issue 22): `npx tsx bench/sections/scale-heap.ts [customers]`.
// The scale section's processes (redis-server, the sandbox, the merchant's server) with fewer customers (1,000):
// a heap snapshot of the merchant process with that many customers (each payment pending, each stream open),
// and one with as many more, each after full collections, then the difference by constructor (self size) per
// customer, largest first. The first batch warms the process (compiled code, caches), so the difference is what
// one more customer costs. Not part of `npm run bench`: a tool for finding what to cut, not a figure.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedis } from '../../test/proxy/helpers.js';
import { BENCH_SECRET, browserHeaders, call, mapLimit, mint, MOUNT, sleep } from '../lib/http.js';
import { startProcess, type BenchProcess } from '../lib/processes.js';
import { openStatusStream, type StatusStream } from '../lib/status-streams.js';
import { customerNumber, SANDBOX_TIME_SCALE } from './scale-run.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size and count by `type:name` (closures by function name, objects by constructor). */
function byConstructor(path: string): Map<string, { size: number; count: number }> {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const out = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const raw = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '' : (snap.strings[snap.nodes[i + nameAt]!] ?? '');
    const key = `${type}:${raw.slice(0, 60)}`;
    const entry = out.get(key) ?? { size: 0, count: 0 };
    entry.size += snap.nodes[i + sizeAt]!;
    entry.count++;
    out.set(key, entry);
  }
  return out;
}

/** Writes a heap snapshot of `merchant` (signalled; it runs with --heapsnapshot-signal) after full collections. */
async function snapshotOf(merchant: BenchProcess, dir: string): Promise<string> {
  await merchant.ask('memory');
  const before = new Set(readdirSync(dir));
  process.kill(merchant.pid, 'SIGUSR2');
  for (;;) {
    await sleep(500);
    const made = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (!made) continue;
    // Written on the process's main thread: once it answers again, the file is whole.
    await merchant.ask('rss');
    const path = join(dir, made);
    if (statSync(path).size > 0) return path;
  }
}

async function main(customers: number): Promise<void> {
  const dir = join(tmpdir(), `scale-heap-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  process.env['BENCH_NODE_ARGS'] = `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`;
  const redisServer = await startRedis();
  const port = await freePort();
  const sandbox = await startProcess('sandbox', { timeScale: SANDBOX_TIME_SCALE, paymentCallbackUrl: `http://127.0.0.1:${port}${MOUNT}/callbacks/payments/{callbackId}` });
  const merchant = await startProcess('merchant', { sandboxUrl: sandbox.url, tokenSecret: BENCH_SECRET, port, logLevel: 'warn', redisUrl: redisServer.url });
  const streams: StatusStream[] = [];
  try {
    await sleep(5_000);
    const batch = (from: number) => mapLimit(Array.from({ length: customers }, (_, i) => from + i), 50, async (i) => {
      const [token] = await mint(merchant, 'payment', { referenceNo: `HEAP-${i}`, amount: 12.5, narration: 'Flash sale order' });
      const answer = await call(`${merchant.url}${MOUNT}/payments`, { body: { msisdn: customerNumber(i) }, headers: browserHeaders(merchant, token!, true) });
      if (answer.status !== 202) throw new Error(`payment ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
      const stream = openStatusStream(`${merchant.url}${MOUNT}/payments/${encodeURIComponent(answer.body.reference as string)}/events`, token!);
      streams.push(stream);
      await stream.arrival('PENDING');
    });
    await batch(0);
    // Every poller at its ceiling, as in the scale section's read window.
    await sleep(25_000);
    const idle = await snapshotOf(merchant, dir);
    const idleMemory = await merchant.ask<NodeJS.MemoryUsage>('memory');
    const made = await batch(customers);
    await sleep(25_000);
    const loaded = await snapshotOf(merchant, dir);
    const loadedMemory = await merchant.ask<NodeJS.MemoryUsage>('memory');
    const n = made.length;
    const per = (field: keyof NodeJS.MemoryUsage) => `${field} ${((loadedMemory[field] - idleMemory[field]) / n / 1024).toFixed(1)} KiB`;
    console.log(`${n} customers more, per customer: ${(['heapUsed', 'heapTotal', 'external', 'arrayBuffers', 'rss'] as const).map(per).join(', ')}`);
    const [a, b] = [byConstructor(idle), byConstructor(loaded)];
    const rows = [...b.entries()]
      .map(([key, { size, count }]) => ({ key, bytes: size - (a.get(key)?.size ?? 0), count: count - (a.get(key)?.count ?? 0) }))
      .filter((r) => r.bytes > n * 16)
      .sort((x, y) => y.bytes - x.bytes);
    for (const r of rows.slice(0, 60)) console.log(`${(r.bytes / n).toFixed(0).padStart(6)} B/customer ${(r.count / n).toFixed(2).padStart(7)} objects/customer  ${r.key}`);
    console.log(`snapshots: ${idle} ${loaded}`);
  } finally {
    for (const stream of streams) stream.close();
    await merchant.stop();
    await sandbox.stop();
    await redisServer.stop();
    if (!process.env['KEEP_SNAPSHOTS']) rmSync(dir, { recursive: true, force: true });
  }
}

await main(Number(process.argv[2] ?? 1_000));
