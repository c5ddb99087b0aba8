import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/cli/csv.js';
import { InputError, UsageError } from '../../src/cli/errors.js';
import { planBulk } from '../../src/cli/sms-bulk-plan.js';

const plan = (csv: string, template?: string) => planBulk(parseCsv(csv), template);

describe('planBulk', () => {
  it('takes each row its own message, else the template filled from the row (columns case-insensitive)', () => {
    const result = plan('To,Name,Message\n233240000001,Kwame,\n233240000002,Ama,Own text\n', 'Hello {name}, {To}');
    expect(result).toEqual({
      rows: 2,
      problems: [],
      messages: [
        { row: 2, to: '233240000001', message: 'Hello Kwame, 233240000001' },
        { row: 3, to: '233240000002', message: 'Own text' },
      ],
    });
  });

  it('lists every bad row with each of its problems', () => {
    const csv = ['to,name', '233240000001,Kwame', '+233240000002,Ama', ',Nobody', '233200000003,Kofi,extra'].join('\n');
    const result = plan(csv, 'Hi {name}');
    expect(result.messages.map((m) => m.row)).toEqual([2]);
    expect(result.problems).toEqual([
      { row: 3, problem: 'to "+233240000002" must be 8 to 15 digits, without a + prefix' },
      { row: 4, problem: 'the "to" column is empty' },
      { row: 5, problem: 'has 3 fields; the header has 2' },
    ]);
  });

  it('refuses a row without any message and one longer than 1600 characters', () => {
    const result = plan(`to,message\n233240000001,\n233240000002,${'x'.repeat(1601)}\n`, undefined);
    expect(result.problems).toEqual([
      { row: 2, problem: 'no message: the "message" column is empty and no --message was given' },
      { row: 3, problem: 'the message has 1601 characters; at most 1600' },
    ]);
  });

  it('refuses an unusable file or template before looking at rows', () => {
    expect(() => plan('', 'Hi')).toThrow(InputError);
    expect(() => plan('name\nKwame\n', 'Hi')).toThrow(/no "to" column/);
    expect(() => plan('to,to\n1,2\n', 'Hi')).toThrow(/repeats column\(s\) to/);
    expect(() => plan('to\n233240000001\n', undefined)).toThrow(UsageError);
    expect(() => plan('to\n233240000001\n', 'Hi {nam}')).toThrow(/\{nam\} is not a column/);
    expect(() => plan('to\n', 'Hi')).toThrow(/no rows under its header/);
  });
});
