import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';
import { startRedis, type TestRedis } from '../proxy/helpers.js';

/**
 * A sandbox (its clock scaled by `timeScale`) and a Redis of their own for the tests of one file or describe
 * block: started before them, stopped after. Read them inside the tests.
 */
export function sandboxAndRedis(timeScale = 0.02): { sandbox(): StartedSandbox; redis(): TestRedis } {
  let sandbox: StartedSandbox | undefined;
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ timeScale });
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
    await sandbox?.close();
  });
  return { sandbox: () => sandbox!, redis: () => redis! };
}
