// docs/tokens.md's minting code, in PHP and Python as the page writes it, run with a proxy's
// PROXY_TOKEN_SECRET: the proxy takes what they mint (a payment token pays, an OTP token sends a code).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, TEST_SECRET, type Harness } from '../proxy/helpers.js';
import { guideWorld, type GuideWorld } from './guide-world.js';

const run = promisify(execFile);

describe('docs/tokens.md: minting in PHP and Python', { timeout: 60_000 }, () => {
  let world: GuideWorld;
  let h: Harness;
  beforeAll(async () => {
    [world, h] = await Promise.all([guideWorld({ terminals: {} }), startHarness()]);
    await world.writeAll('docs/tokens.md');
  });
  afterAll(async () => {
    await h?.close();
    await world?.close();
  });

  const mint = async (command: string, file: string, secret = TEST_SECRET) =>
    (await run(command, [file], { cwd: world.dir, env: { ...process.env, PROXY_TOKEN_SECRET: secret } })).stdout.trim();

  it('a payment token minted by the PHP code pays its order, at its amount', async () => {
    const page = await mint('php', 'mint.php');
    const token = /^<pay-by-mobile token="([^"]+)"><\/pay-by-mobile>$/.exec(page)![1]!;
    expect((await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token })).status).toBe(200);
    const paid = await h.post('/payments', { msisdn: '0240000001' }, { token });
    expect(paid.status).toBe(202);
    expect(paid.body).toMatchObject({ orderReference: 'ORDER-1042', amount: 12.5 });
  });

  it('an OTP token minted by the Python code sends a code', async () => {
    const token = await mint('python3', 'mint.py');
    expect((await h.post('/otp/send', { recipient: '024 000 0001' }, { token })).status).toBe(200);
  });
});
