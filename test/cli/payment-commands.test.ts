import { describe, expect, it } from 'vitest';
import { runMain, useCliSandbox } from './cli-harness.js';

const cli = useCliSandbox();

/** Posts to the sandbox with its default credentials, the way the proxy would. */
async function post(path: string, authorization: string, body: object): Promise<Record<string, unknown>> {
  const res = await fetch(`${cli.sandbox.url}${path}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe('merchant-elements payment status', () => {
  it('shows a payment by its referenceNo, as fields or JSON', async () => {
    const basic = `Basic ${Buffer.from('test-user:test-password').toString('base64')}`;
    await post('/gateway/v1/payment', basic, {
      amount: 12.5,
      referenceNo: 'ORDER-CLI-1',
      payee: 'Shop',
      narration: 'Order 1',
      msisdn: '233240000001',
      callbackId: 'cb',
      payer: 'Kwame',
    });
    const human = await runMain(['payment', 'status', 'ORDER-CLI-1'], cli.env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^reference {4}ORDER-CLI-1\nstatus {7}(PENDING|COMPLETED)\namount {7}12\.5\n/);
    expect(human.stdout).toContain('msisdn       233240000001');

    const json = JSON.parse((await runMain(['payment', 'status', 'ORDER-CLI-1', '--json'], cli.env)).stdout);
    expect(json).toMatchObject({ statusCode: '0000', data: { amount: 12.5, msisdn: '233240000001' } });
  });

  it('says an unknown reference is not found, with the gateway code, and exits 1', async () => {
    const run = await runMain(['payment', 'status', 'NO-SUCH-ORDER'], cli.env);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'merchant-elements: payment status: not found (0404 Transaction not found)\n',
    });
  });
});

describe('merchant-elements account lookup', () => {
  it('shows the account holder, and exits 1 for a number without one', async () => {
    const found = await runMain(['account', 'lookup', '233240000001'], cli.env);
    expect(found).toMatchObject({ code: 0, stdout: 'accountName  KWAME MENSAH\nnetwork      MTN\nmsisdn       233240000001\n' });
    const json = JSON.parse((await runMain(['account', 'lookup', '233200000003', '--json'], cli.env)).stdout);
    expect(json.data).toEqual({ accountName: 'KOFI BOATENG', msisdn: '233200000003', network: 'Telecel' });

    const missing = await runMain(['account', 'lookup', '233240000404'], cli.env);
    expect(missing).toMatchObject({ code: 1, stderr: 'merchant-elements: account lookup: not found (0404 Account holder not found)\n' });
  });

  it('refuses a local or invalid number with exit 2 before asking the provider, naming the digits to give', async () => {
    const local = await runMain(['account', 'lookup', '0240000001'], cli.env);
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(
      /^merchant-elements: account lookup: msisdn "0240000001" is not a valid number as the provider takes it: give it with its country code, 233240000001\n/,
    );
    const junk = await runMain(['account', 'lookup', 'kwame'], cli.env);
    expect(junk.code).toBe(2);
    expect(junk.stderr).toMatch(/^merchant-elements: account lookup: msisdn "kwame" is not a valid number/);
  });
});

describe('merchant-elements checkout status', () => {
  it('shows a session, and exits 1 for an unknown one', async () => {
    const session = await post('/v1/checkout/initialize', 'Bearer test-checkout-key', {
      title: 'Order',
      reference: 'ORDER-CLI-2',
      amount: 20,
      description: 'Two things',
      returnUrl: 'https://shop.example/return',
    });
    const checkoutId = String(session.checkoutId);
    const human = await runMain(['checkout', 'status', checkoutId], cli.env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`checkoutId  ${checkoutId}\nstatus      pending\namount      20 GHS\n`);
    expect(human.stdout).not.toContain('completedAt');
    const json = JSON.parse((await runMain(['checkout', 'status', checkoutId, '--json'], cli.env)).stdout);
    expect(json).toMatchObject({ checkoutId, status: 'pending', currency: 'GHS' });

    const unknown = await runMain(['checkout', 'status', 'nope'], cli.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^merchant-elements: checkout status: not found \(NOT_FOUND /);
  });
});
