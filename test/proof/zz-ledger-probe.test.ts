import fc from 'fast-check';
import { it } from 'vitest';
const { modelProperty } = await import('/work/main/test/proof/model/property.js');
it('ledger era', async () => {
  for (const seed of (process.env.SEEDS ?? '11').split(',').map(Number)) {
    const result = await fc.check(modelProperty(false, undefined, true, 'ledger'), { numRuns: Number(process.env.RUNS ?? 500), seed, endOnFailure: true });
    console.log('SEED', seed, 'failed', result.failed, 'runs', result.numRuns, 'path', result.counterexamplePath, String(result.errorInstance).split('\n').slice(0, 6).join(' | '));
  }
}, 3_000_000);
