// The merchant process's memory as the scale section and its harness (bench/sections/scale-memory.ts) read it.
import type { HeapSpaceInfo } from 'node:v8';
import { sleep } from './http.js';
import type { BenchProcess } from './processes.js';

const MiB = 2 ** 20;

/** The merchant's memory at the highest RSS sample (MiB), and what the sale was doing then. */
export interface PeakSample {
  rss: number;
  /** V8's committed heap, what of it is used (garbage not yet collected included), and its new space. */
  heapTotal: number;
  heapUsed: number;
  newSpace: number;
  phase: string;
  /** Seconds since the sampler was last reset. */
  atSec: number;
}

/**
 * The merchant's memory after two full collections, its RSS read 2 s later: read at once, it still holds the
 * pages the collector evacuated, which a background thread hands back (`bench/sections/scale-memory.ts`).
 */
export async function collectedMemory(merchant: BenchProcess): Promise<NodeJS.MemoryUsage> {
  const memory = await merchant.ask<NodeJS.MemoryUsage>('memory');
  await sleep(2_000);
  return { ...memory, rss: await merchant.ask<number>('rss') };
}

/**
 * RSS samples of the merchant (MiB, as `sample()` is called) and the highest one with V8's heap at that
 * moment, labelled with the `phase` the caller sets.
 */
export function rssSampler(merchant: BenchProcess) {
  const samples: number[] = [];
  let since = performance.now();
  const state = { phase: 'settling' };
  const peak: PeakSample = { rss: 0, heapTotal: 0, heapUsed: 0, newSpace: 0, phase: state.phase, atSec: 0 };
  return {
    samples,
    peak,
    state,
    /** Asks for one sample (no collection). */
    sample(): void {
      void merchant.ask<NodeJS.MemoryUsage & { spaces: HeapSpaceInfo[] }>('usage').then((u) => {
        const mib = u.rss / MiB;
        samples.push(mib);
        if (mib <= peak.rss) return;
        const newSpace = u.spaces.find((s) => s.space_name === 'new_space')?.space_size ?? 0;
        Object.assign(peak, { rss: mib, heapTotal: u.heapTotal / MiB, heapUsed: u.heapUsed / MiB, newSpace: newSpace / MiB, phase: state.phase, atSec: (performance.now() - since) / 1000 });
      }, () => undefined);
    },
    /** Forgets the samples so far: the sale starts now. */
    reset(): void {
      samples.length = 0;
      peak.rss = 0;
      since = performance.now();
    },
  };
}
