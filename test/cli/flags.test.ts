import { describe, expect, it } from 'vitest';
import { emailFlag, internationalFormOf, notLocalForm, portFlag, positiveNumberFlag, providerNumber } from '../../src/cli/flags.js';
import { runMain } from './cli-harness.js';

describe('command-line values checked before anything is sent', () => {
  it('takes a port from 0 to 65535 and quotes what was typed otherwise, never NaN', () => {
    expect(portFlag('0')).toBe(0);
    expect(portFlag('5173')).toBe(5173);
    for (const bad of ['abc', '', '12.5', '-1', '65536', '0x10', '1e3']) {
      expect(() => portFlag(bad), bad).toThrow(`--port must be a whole number from 0 to 65535, got "${bad}"`);
    }
    expect(positiveNumberFlag('0.1', '--time-scale')).toBe(0.1);
    expect(() => positiveNumberFlag('fast', '--time-scale')).toThrow('--time-scale must be a positive number, got "fast"');
  });

  it('turns a local number into the one to give, and refuses what is no number', () => {
    expect(internationalFormOf('0240000001', 'GH')).toBe('233240000001');
    expect(internationalFormOf('024 000 0001', 'GH')).toBe('233240000001');
    expect(internationalFormOf('233240000001', 'GH')).toBeUndefined();
    expect(providerNumber('233240000001', 'msisdn', 'GH')).toBe('233240000001');
    expect(() => providerNumber('0240000001', 'msisdn', 'GH')).toThrow(
      'msisdn "0240000001" is not a valid number as the provider takes it: give it with its country code, 233240000001',
    );
    expect(() => providerNumber('12345', 'msisdn', 'GH')).toThrow('msisdn "12345" is not a valid number');
    expect(() => providerNumber('+233240000001', 'msisdn', 'GH')).toThrow('is not a valid number');
    expect(notLocalForm('4912345678', '--to', 'GH')).toBe('4912345678');
    expect(() => notLocalForm('0240000001', '--to', 'GH')).toThrow('--to "0240000001" is a local number: give it with its country code, 233240000001');
  });

  it('takes an email address only', () => {
    expect(emailFlag('shop@example.com', '--from')).toBe('shop@example.com');
    expect(() => emailFlag('Shop', '--from')).toThrow('--from must be an email address, got "Shop"');
  });

  it('answers a bad --port of sandbox and demo with exit 2 and the value typed', async () => {
    for (const command of ['sandbox', 'demo']) {
      const run = await runMain([command, '--port', 'abc'], {});
      expect(run.code, command).toBe(2);
      expect(run.stderr, command).toMatch(new RegExp(`^merchant-elements: ${command}: --port must be a whole number from 0 to 65535, got "abc"\\n`));
      expect(run.stderr).not.toContain('NaN');
    }
    expect((await runMain(['sandbox', '--time-scale', 'x'], {})).stderr).toContain('--time-scale must be a positive number, got "x"');
  });
});
