import { describe, expect, it } from 'vitest';
import { outbox, runMain, useCliSandbox } from './cli-harness.js';

const cli = useCliSandbox();

const KWAME = '233240000001';
const AMA = '233240000002';

describe('merchant-elements sms send, status and resend', () => {
  it('sends an SMS that lands in the outbox, printing aligned fields or the parsed response', async () => {
    const human = await runMain(['sms', 'send', '--to', KWAME, '--from', 'Shop', '--message', 'Hello from the CLI'], cli.env);
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toMatch(/^status {9}SMS sent successfully\nsequenceNo {5}\S+\n/);
    expect(human.stdout).toContain(`to             ${KWAME}\n`);

    const json = await runMain(['sms', 'send', '--to', AMA, '--from', 'Shop', '--message', 'Hi Ama', '--json'], cli.env);
    expect(json.code).toBe(0);
    const response = JSON.parse(json.stdout) as { statusCode: number; sequenceNo: string };
    expect(response.statusCode).toBe(201);
    const [sms] = await outbox(cli.sandbox, AMA);
    expect(sms).toMatchObject({ kind: 'sms', to: AMA, from: 'Shop', message: 'Hi Ama', sequenceNo: response.sequenceNo });
  });

  it('reads the delivery receipt and resends with new content', async () => {
    const sent = await runMain(['sms', 'send', '--to', AMA, '--from', 'Shop', '--message', 'First', '--json'], cli.env);
    const { sequenceNo } = JSON.parse(sent.stdout) as { sequenceNo: string };
    await new Promise((resolve) => setTimeout(resolve, 50)); // ACCEPTED lasts 2 simulated seconds (20 ms here)

    const status = await runMain(['sms', 'status', sequenceNo], cli.env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('deliveryStatus  UNDELIVERED');
    const statusJson = JSON.parse((await runMain(['sms', 'status', sequenceNo, '--json'], cli.env)).stdout);
    expect(statusJson).toMatchObject({ statusCode: '200', data: { sequenceNo, deliveryStatus: 'UNDELIVERED' } });

    const resent = await runMain(['sms', 'resend', sequenceNo, '--message', 'Second', '--json'], cli.env);
    expect(resent.code).toBe(0);
    expect(JSON.parse(resent.stdout)).toMatchObject({ statusMessage: 'SMS resent successfully' });
    expect((await outbox(cli.sandbox, AMA))[0]).toMatchObject({ message: 'Second' });
  });

  it('prints the messageId that sms resend takes, and resends by it', async () => {
    const sent = await runMain(['sms', 'send', '--to', KWAME, '--from', 'Shop', '--message', 'Your order shipped'], cli.env);
    expect(sent.code).toBe(0);
    const messageId = /^messageId {6}(\S+)$/m.exec(sent.stdout)?.[1];
    expect(messageId).toBeDefined();
    const [sms] = await outbox(cli.sandbox, KWAME);
    expect(sms).toMatchObject({ message: 'Your order shipped', messageId });

    const resent = await runMain(['sms', 'resend', messageId!, '--message', 'Your order shipped today'], cli.env);
    expect(resent.code).toBe(0);
    expect(resent.stdout).toMatch(/^messageId {6}\S+$/m);
    expect((await outbox(cli.sandbox, KWAME))[0]).toMatchObject({ message: 'Your order shipped today' });
  });

  it('refuses a local number with exit 2, naming the digits to give, and sends nothing', async () => {
    const before = (await outbox(cli.sandbox)).length;
    const local = await runMain(['sms', 'send', '--to', '0240000001', '--from', 'Shop', '--message', 'x'], cli.env);
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(/^merchant-elements: sms send: --to "0240000001" is a local number: give it with its country code, 233240000001\n/);
    expect(await outbox(cli.sandbox)).toHaveLength(before);
  });

  it('fails with exit 1 on a provider refusal and 2 on a bad flag value, sending nothing', async () => {
    const unknown = await runMain(['sms', 'status', 'no-such-sequence'], cli.env);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe('merchant-elements: sms status: not found (NOT_FOUND No message with the sequenceNo no-such-sequence.)\n');

    const foreign = await runMain(['sms', 'send', '--to', '4912345678', '--from', 'Shop', '--message', 'x'], cli.env);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/^merchant-elements: sms send: refused as invalid \(INVALID_PHONE_NUMBER .*Ghanaian/);

    const before = (await outbox(cli.sandbox)).length;
    const plus = await runMain(['sms', 'send', '--to', '+233240000001', '--from', 'Shop', '--message', 'x'], cli.env);
    expect(plus.code).toBe(2);
    expect(plus.stderr).toMatch(/^merchant-elements: sms send: invalid request, nothing was sent \(to: must be 8 to 15 digits/);
    expect(plus.stderr).toContain('Usage: merchant-elements sms send');
    expect(await outbox(cli.sandbox)).toHaveLength(before);
  });
});

describe('merchant-elements email send', () => {
  it('sends to several recipients and refuses a send without a body', async () => {
    const args = ['email', 'send', '--from', 'shop@example.com', '--to', 'a@example.com', '--to', 'b@example.com', '--subject', 'Receipt'];
    const sent = await runMain([...args, '--text', 'Thanks', '--json'], cli.env);
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ statusCode: '200' });
    expect((await outbox(cli.sandbox, 'b@example.com'))[0]).toMatchObject({ kind: 'email', subject: 'Receipt' });

    const human = await runMain([...args, '--html', '<p>Thanks</p>'], cli.env);
    expect(human.stdout).toMatch(/^status {9}Email scheduled/);

    const badFrom = await runMain(['email', 'send', '--from', 'Shop', '--to', 'a@example.com', '--subject', 'Hi', '--text', 'x'], cli.env);
    expect(badFrom.code).toBe(2);
    expect(badFrom.stderr).toMatch(/^merchant-elements: email send: --from must be an email address, got "Shop"\n/);

    const bodiless = await runMain(args, cli.env);
    expect(bodiless.code).toBe(2);
    expect(bodiless.stderr).toMatch(/^merchant-elements: email send: give --text or --html/);
  });
});

describe('merchant-elements balance', () => {
  it('prints the credit as fields or JSON', async () => {
    const human = await runMain(['balance'], cli.env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^account {10}1\nname {13}\S/);
    expect(human.stdout).toMatch(/\ncredit {11}\d+/);
    const json = JSON.parse((await runMain(['balance', '--json'], cli.env)).stdout);
    expect(json).toMatchObject({ statusCode: '200', data: { credit: expect.any(Number) } });
  });
});
