/**
 * The model checker can fail (a test that cannot fail is a defect): with one money rule broken on purpose,
 * "unknown blocks everything" (a checkout is let through while the order's mobile-money try is being sent or
 * its outcome is unknown), the same property fails a run with an order charged twice.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/proxy/order/order-rules.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/proxy/order/order-rules.js')>();
  return {
    ...real,
    // The broken rule: only a pending or completed try holds the order; one sent or unknown does not.
    heldByMobileMoney: (order: Parameters<typeof real.heldByMobileMoney>[0], env: Parameters<typeof real.heldByMobileMoney>[1]) =>
      real.heldByMobileMoney({ ...order, tries: order.tries.filter((t) => t.phase !== 'sending' && t.phase !== 'unknown') }, env),
  };
});

const { modelProperty } = await import('./model/property.js');

describe('the order model, with "unknown blocks everything" broken on purpose', () => {
  it('finds an order charged twice', async () => {
    // Since every new session reads the provider first (the provider is the ledger), a double charge needs a
    // checkout opened while the order's try is still on its way, so the search finds it rarely: of seeds 1 to
    // 5 of the 'late' era, seed 4 within 3,000 runs (run 2,770). Its run is replayed here; the search itself
    // runs in `npm run proof:long` (test/proof/long/order-model-canary.test.ts).
    const result = await fc.check(modelProperty(false, undefined, true, 'late'), { seed: 4, path: '2769', numRuns: 1, endOnFailure: true });
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/was charged 2 times/);
  }, 120_000);
});
