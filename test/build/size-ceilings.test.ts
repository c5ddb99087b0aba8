// The size check's rules: a figure with a target fails above it; the pages showing one element, whose target
// issue 36 retired, are held at ceilings that fail the build above them and are never raised.
import { describe, expect, it } from 'vitest';
import { allowed, BUDGETS, CEILINGS, sizeTable, type SizeRow } from '../../scripts/check-size.js';

const row = (name: string, gzipped: number, budget: number, kind: SizeRow['kind']): SizeRow => ({ name, minified: gzipped * 3, gzipped, budget, kind });

/** The one-element pages as they weighed when issue 36 retired their target: a ceiling may only be lower. */
const WHEN_RETIRED: Record<string, number> = {
  'page with <otp-verify>: loader + shared + element': 12_178,
  'page with <pay-by-mobile>: loader + shared + element': 13_747,
  'page with <checkout-button>: loader + shared + element': 11_167,
};

describe('size ceilings', () => {
  it('fails a figure over its target and one over its ceiling, saying which; passes one at its limit', () => {
    const [held, ceiling] = Object.entries(CEILINGS)[0]!;
    const table = sizeTable([
      row('<x> alone, one file', BUDGETS.one + 1, BUDGETS.one, 'target'),
      row('loader.js', BUDGETS.loader, BUDGETS.loader, 'target'),
      row(held, ceiling + 1, ceiling, 'ceiling'),
      row(held, ceiling, ceiling, 'ceiling'),
    ]);
    expect(table.match(/OVER BUDGET.*/g)).toEqual([`OVER BUDGET: <x> alone, one file by 1 bytes over its target`, `OVER BUDGET: ${held} by 1 bytes over its ceiling`]);
    expect(allowed(row(held, 0, ceiling, 'ceiling'))).toBe(ceiling);
  });

  it('holds each one-element page at a ceiling no higher than it weighed when its target was retired, and nothing else', () => {
    expect(Object.keys(CEILINGS).sort()).toEqual(Object.keys(WHEN_RETIRED).sort());
    for (const [name, ceiling] of Object.entries(CEILINGS)) expect(ceiling, name).toBeLessThanOrEqual(WHEN_RETIRED[name]!);
    expect(BUDGETS, 'no page target left').not.toHaveProperty('page');
  });
});
