/**
 * The model checker's search can find a double charge (a test that cannot fail is a defect): with "unknown
 * blocks everything" broken on purpose (a checkout let through while the order's try is being sent or its
 * outcome is unknown), generated runs find an order charged twice, first as two live at one commit.
 * `npm test` runs the run such a search found as a scenario (test/proof/order-model-canary.test.ts); this is
 * the search itself, too long for `npm test`.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../../src/proxy/order/order-rules.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/proxy/order/order-rules.js')>();
  return {
    ...real,
    heldByMobileMoney: (order: Parameters<typeof real.heldByMobileMoney>[0], env: Parameters<typeof real.heldByMobileMoney>[1]) =>
      real.heldByMobileMoney({ ...order, tries: order.tries.filter((t) => t.phase !== 'sending' && t.phase !== 'unknown') }, env),
  };
});

const { modelProperty } = await import('../model/property.js');

const seed = Number(process.env['CANARY_SEED'] ?? 1);
const runs = Number(process.env['CANARY_RUNS'] ?? 3_000);

describe('the order model, with "unknown blocks everything" broken on purpose', () => {
  it('finds a session opened beside a live try by searching', async () => {
    const result = await fc.check(modelProperty(), { numRuns: runs, seed, endOnFailure: true });
    console.info(`seed ${seed}: ${result.failed ? `found at run ${result.numRuns}` : `not found in ${runs} runs`}`);
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/started (try|session) [^ ]+ with 2 live at once|was charged 2 times/);
  });
});
