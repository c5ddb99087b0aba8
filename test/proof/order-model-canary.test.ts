/**
 * The model checker can fail (a test that cannot fail is a defect): with one money rule broken on purpose,
 * "unknown blocks everything" (a checkout is let through while the order's mobile-money try is being sent or
 * its outcome is unknown), the run its search found (the scenario `canary-checkout-beside-unknown-try`) breaks
 * the rule at the commit that opens the session beside the live try, and ends with the order charged twice.
 * The search itself runs in `npm run proof:long` (test/proof/long/order-model-canary.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type { Scenario } from './model/script.js';

vi.mock('../../src/proxy/order/order-rules.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/proxy/order/order-rules.js')>();
  return {
    ...real,
    // The broken rule: only a pending or completed try holds the order; one sent or unknown does not.
    heldByMobileMoney: (order: Parameters<typeof real.heldByMobileMoney>[0], env: Parameters<typeof real.heldByMobileMoney>[1]) =>
      real.heldByMobileMoney({ ...order, tries: order.tries.filter((t) => t.phase !== 'sending' && t.phase !== 'unknown') }, env),
  };
});

const { runScenario } = await import('./model/script.js');
const SCENARIOS = JSON.parse(readFileSync(new URL('./order-scenarios.json', import.meta.url), 'utf8')) as Record<string, Scenario>;

describe('the order model, with "unknown blocks everything" broken on purpose', () => {
  it('finds a session opened beside a live try, at its commit, and the order charged twice', async () => {
    const { broken } = await runScenario(SCENARIOS['canary-checkout-beside-unknown-try']!);
    expect(broken[0]).toMatch(/^at command \d+: O1 \(record \w+ v\d+\) started session 1 with 2 live at once: try O1-1 \w+, session 1 \w+$/);
    expect(broken.join('\n')).toMatch(/O1 was charged 2 times/);
  });
});
