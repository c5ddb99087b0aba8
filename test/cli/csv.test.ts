import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/cli/csv.js';
import { InputError } from '../../src/cli/errors.js';

describe('parseCsv', () => {
  it('splits records and fields, with the line each record starts on', () => {
    expect(parseCsv('to,name\n233240000001,Kwame\n233240000002,Ama\n')).toEqual([
      { line: 1, fields: ['to', 'name'] },
      { line: 2, fields: ['233240000001', 'Kwame'] },
      { line: 3, fields: ['233240000002', 'Ama'] },
    ]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF ends and a byte-order mark', () => {
    const text = '\uFEFFto,message\r\n1,"Hello, ""you""\r\nsee you"\r\n2,""\r\n';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ['to', 'message'] },
      { line: 2, fields: ['1', 'Hello, "you"\r\nsee you'] },
      { line: 4, fields: ['2', ''] },
    ]);
  });

  it('skips blank lines and keeps empty fields', () => {
    expect(parseCsv('a,b\n\n1,\n\n,2')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['1', ''] },
      { line: 5, fields: ['', '2'] },
    ]);
  });

  it('refuses a quoted field never closed and a stray quote, naming the line', () => {
    expect(() => parseCsv('a\n"open\n')).toThrow(new InputError('line 2: a quoted field is not closed'));
    expect(() => parseCsv('a\nab"c\n')).toThrow(/line 2: a quote inside an unquoted field/);
  });
});
