/**
 * After an outage the breaker tries the provider again within seconds of it answering (issue 35): the first
 * trial after 1 s, each failed one doubling the wait up to 5 s. Before, it waited 30 s, and customers were
 * refused 21 to 28 s after the provider was back. The sandbox's scripted faults are the outage, over loopback.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProviderClient, sandboxEndpoints, type ClosableProviderClient } from '../../src/provider/index.js';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/index.js';

let sandbox: StartedSandbox | undefined;
let client: ClosableProviderClient | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await sandbox?.close();
  client = sandbox = undefined;
});

async function start(): Promise<{ sandbox: StartedSandbox; client: ClosableProviderClient }> {
  sandbox = await startSandbox({ timeScale: 0.01 });
  const urls = sandboxEndpoints(sandbox.url);
  client = createProviderClient({
    messaging: { baseUrl: urls.messaging, apiKey: 'test-api-key', apiSecret: 'test-api-secret' },
    payment: { baseUrl: urls.payment, username: 'test-user', password: 'test-password' },
    checkout: { baseUrl: urls.checkout, apiKey: 'test-checkout-key' },
    retry: { maxRetries: 0 },
  });
  return { sandbox, client };
}

/** Scripts the sandbox's messaging interface to answer 503 until `recover`. */
async function outage(target: StartedSandbox): Promise<{ recover(): Promise<void> }> {
  const res = await fetch(`${target.url}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: '503', count: 10_000, path: '/v1/external/account' }),
  });
  expect(res.status).toBe(201);
  return { recover: async () => void (await fetch(`${target.url}/__sandbox/faults`, { method: 'DELETE' })) };
}

/** How many faults the sandbox has injected so far: each is a call that reached it. */
async function injected(target: StartedSandbox): Promise<number> {
  const { faults } = (await (await fetch(`${target.url}/__sandbox/faults`)).json()) as { faults: { remaining: number }[] };
  return 10_000 - (faults[0]?.remaining ?? 10_000);
}

describe('the breaker after an outage', () => {
  it('tries again after 1 s, then 2 s, 4 s and at most 5 s while the provider fails, and closes on the first trial once it answers', async () => {
    const { sandbox: target, client: provider } = await start();
    // The breaker keeps its time by Date: the clock moves when the test says, whatever the machine's speed.
    vi.useFakeTimers({ toFake: ['Date'] });
    const down = await outage(target);
    for (let i = 0; i < 10; i++) await expect(provider.account.balance()).rejects.toMatchObject({ reason: 'http' });
    expect(provider.circuitState('messaging')).toBe('open');
    expect(await injected(target)).toBe(10);

    // Each wait, then one trial (which fails while the outage lasts) and nothing sent before it ends.
    let sent = 10;
    for (const waitMs of [1_000, 2_000, 4_000, 5_000, 5_000]) {
      vi.setSystemTime(Date.now() + waitMs - 1);
      await expect(provider.account.balance()).rejects.toMatchObject({ reason: 'circuit-open' });
      expect(provider.circuitState('messaging')).toBe('open');
      vi.setSystemTime(Date.now() + 1);
      expect(provider.circuitState('messaging')).toBe('half-open');
      await expect(provider.account.balance()).rejects.toMatchObject({ reason: 'http' });
      sent += 1;
      expect(await injected(target)).toBe(sent);
    }

    // The provider answers again: the next trial, at most 5 s later, closes the circuit.
    await down.recover();
    vi.setSystemTime(Date.now() + 5_000);
    await expect(provider.account.balance()).resolves.toMatchObject({ statusCode: '200' });
    expect(provider.circuitState('messaging')).toBe('closed');
  });

  it('refuses the other calls at once while a trial is out, instead of holding them until it settles', async () => {
    const { sandbox: target, client: provider } = await start();
    vi.useFakeTimers({ toFake: ['Date'] });
    const down = await outage(target);
    for (let i = 0; i < 10; i++) await expect(provider.account.balance()).rejects.toMatchObject({ reason: 'http' });
    await down.recover();
    // The trial hangs at the sandbox (latency) while others come.
    await fetch(`${target.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'latency', count: 1, path: '/v1/external/account' }),
    });
    vi.setSystemTime(Date.now() + 1_000);
    const trial = provider.account.balance();
    let trialSettled = false;
    void trial.then(() => (trialSettled = true), () => (trialSettled = true));
    await expect(provider.account.balance()).rejects.toMatchObject({ reason: 'circuit-open' });
    expect(trialSettled).toBe(false);
    await expect(trial).resolves.toMatchObject({ statusCode: '200' });
    expect(provider.circuitState('messaging')).toBe('closed');
  });
});
