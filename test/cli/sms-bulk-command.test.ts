import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outbox, runMain, useCliSandbox } from './cli-harness.js';

const cli = useCliSandbox();
const csv = (...lines: string[]) => cli.csv(...lines);
const smsCount = async () => (await outbox(cli.sandbox)).filter((e) => e.kind === 'sms').length;

describe('merchant-elements sms bulk', () => {
  it('sends one message per row, templated or its own, in requests of --batch-size, with progress', async () => {
    const file = await csv('to,name,message', '233240000001,Kwame,', '233240000002,"Serwaa, Ama",', '233200000003,Kofi,Your own text');
    const before = await smsCount();
    const run = await runMain(['sms', 'bulk', '--file', file, '--from', 'Shop', '--message', 'Hello {name}', '--batch-size', '2'], cli.env);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('sent 2/3\nsent 3/3\n');
    expect(run.stdout).toMatch(/^sent 3 of 3 rows in 2 request\(s\)\n\nrow {2}to {12}sequenceNo\n2 {4}233240000001 {2}\S+\n/);
    expect(await smsCount()).toBe(before + 3);
    expect((await outbox(cli.sandbox, '233240000002'))[0]).toMatchObject({ message: 'Hello Serwaa, Ama', from: 'Shop' });
    expect((await outbox(cli.sandbox, '233200000003'))[0]).toMatchObject({ message: 'Your own text' });
  });

  it('prints each message with its row and sequenceNo in --json', async () => {
    const file = await csv('to', '233240000001', '233260000004');
    const run = await runMain(['sms', 'bulk', '--file', file, '--from', 'Shop', '--message', 'Hi', '--json'], cli.env);
    expect(run.code).toBe(0);
    const outcome = JSON.parse(run.stdout) as { messages: { row: number; to: string; sequenceNo: string }[] };
    expect(outcome).toMatchObject({ rows: 2, sent: 2, requests: 1, skipped: [] });
    expect(outcome.messages.map((m) => [m.row, m.to])).toEqual([
      [2, '233240000001'],
      [3, '233260000004'],
    ]);
    const receipt = await runMain(['sms', 'status', outcome.messages[1]!.sequenceNo, '--json'], cli.env);
    expect(JSON.parse(receipt.stdout).data.receiverAddress).toEqual(['233260000004']);
  });

  it('sends nothing and exits 2 naming each bad row, unless --skip-invalid', async () => {
    const file = await csv('to,name', '233240000001,Kwame', '+233240000002,Ama', ',Nobody');
    const before = await smsCount();
    const refused = await runMain(['sms', 'bulk', '--file', file, '--from', 'Shop', '--message', 'Hi {name}'], cli.env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `merchant-elements: sms bulk: 2 of 3 rows of ${file} are invalid; nothing was sent (--skip-invalid sends the valid ones)\n` +
        '  row 3: to "+233240000002" must be 8 to 15 digits, without a + prefix\n' +
        '  row 4: the "to" column is empty\n',
    );
    expect(await smsCount()).toBe(before);

    const skipped = await runMain(['sms', 'bulk', '--file', file, '--from', 'Shop', '--message', 'Hi {name}', '--skip-invalid', '--json'], cli.env);
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toMatch(/^skipping row 3: .*\nskipping row 4: .*\nsent 1\/1\n$/);
    expect(JSON.parse(skipped.stdout)).toMatchObject({ sent: 1, skipped: [{ row: 3 }, { row: 4 }] });
    expect(await smsCount()).toBe(before + 1);
  });

  it('says where it stopped when the provider refuses a request part way', async () => {
    const file = await csv('to', '233240000001', '4912345678', '233240000002');
    const run = await runMain(['sms', 'bulk', '--file', file, '--from', 'Shop', '--message', 'Hi', '--batch-size', '1'], cli.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('sent 1/3\nstopped: 1/3 sent; the request with row 3 failed; the provider refused row 3; later rows were not sent\n');
    expect(run.stderr).toMatch(/merchant-elements: sms bulk: refused as invalid \(INVALID_PHONE_NUMBER /);
  });

  it('refuses bad flags and unreadable files with exit 2', async () => {
    const file = await csv('to', '233240000001');
    const big = await runMain(['sms', 'bulk', '--file', file, '--from', 'Shop', '--message', 'Hi', '--batch-size', '1001'], cli.env);
    expect(big).toMatchObject({ code: 2 });
    expect(big.stderr).toMatch(/^merchant-elements: sms bulk: --batch-size must be a whole number from 1 to 1000/);
    const noMessage = await runMain(['sms', 'bulk', '--file', file, '--from', 'Shop'], cli.env);
    expect(noMessage.stderr).toMatch(/give --message, or a "message" column/);
    const missing = await runMain(['sms', 'bulk', '--file', join(cli.dir, 'none.csv'), '--from', 'Shop', '--message', 'x'], cli.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*none\.csv: ENOENT/);
  });
});
