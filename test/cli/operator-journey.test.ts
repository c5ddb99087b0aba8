import { describe, expect, it } from 'vitest';
import { outbox, runBin, useCliSandbox } from './cli-harness.js';

const cli = useCliSandbox();

// Each run spawns node with tsx (about a second), so the runs go in parallel.
describe('an operator runs the merchant-elements command against the sandbox', () => {
  it('sends an SMS and a bulk file, reads an unknown payment and is told of bad credentials and flags', async () => {
    const file = await cli.csv('to,name', '233240000001,Kwame', '233240000002,Ama', '233200000003,Kofi');
    const secret = 'not-the-password-42';
    const [send, bulk, payment, credentials, usage] = await Promise.all([
      runBin(['sms', 'send', '--to', '233260000004', '--from', 'Shop', '--message', 'Your order shipped'], cli.env),
      runBin(['sms', 'bulk', '--file', file, '--from', 'Shop', '--message', 'Hello {name}', '--json'], cli.env),
      runBin(['payment', 'status', 'NO-SUCH-ORDER'], cli.env),
      runBin(['balance'], { ...cli.env, MESSAGING_API_SECRET: secret }),
      runBin(['sms', 'send', '--from', 'Shop', '--message', 'x'], cli.env),
    ]);

    expect(send.code).toBe(0);
    expect(send.stdout).toMatch(/^status {9}SMS sent successfully\n/);
    expect((await outbox(cli.sandbox, '233260000004'))[0]).toMatchObject({ message: 'Your order shipped' });

    expect(bulk.code).toBe(0);
    expect(bulk.stderr).toBe('sent 3/3\n');
    const outcome = JSON.parse(bulk.stdout) as { messages: { row: number; sequenceNo: string }[] };
    expect(outcome.messages.map((m) => m.row)).toEqual([2, 3, 4]);
    expect((await outbox(cli.sandbox, '233200000003'))[0]).toMatchObject({ message: 'Hello Kofi' });

    expect(payment).toEqual({
      code: 1,
      stdout: '',
      stderr: 'merchant-elements: payment status: not found (0404 Transaction not found)\n',
    });

    expect(credentials.code).toBe(1);
    expect(credentials.stderr).toMatch(/^merchant-elements: balance: authentication failed /);
    expect(credentials.stderr + credentials.stdout).not.toContain(secret);

    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^merchant-elements: sms send: --to is required\n\nUsage: /);
  }, 30_000);
});
