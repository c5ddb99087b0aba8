import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/proxy/errors.js';
import { maskForLog, maskPhone, normaliseLocalPhone, normalisePhone, phonePrefix } from '../../src/proxy/phone.js';

const code = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ProxyError);
    return (err as ProxyError).code;
  }
  return 'none';
};

describe('phone', () => {
  it('normalises local and international forms to digits without +', () => {
    for (const typed of ['024 000 0001', '0240000001', '+233 24 000 0001', '233240000001', '00233 24 000 0001', '(024) 000-0001']) {
      expect(normalisePhone(typed, 'GH').digits, typed).toBe('233240000001');
    }
  });

  it('normalises every form of any Ghanaian MTN number alike (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('24', '54', '55'), fc.stringMatching(/^[1-9]\d{6}$/), (prefix, rest) => {
        const national = `${prefix}${rest}`;
        const digits = `233${national}`;
        for (const typed of [`0${national}`, `+${digits}`, digits, `0${prefix} ${rest.slice(0, 3)} ${rest.slice(3)}`]) {
          expect(normaliseLocalPhone(typed, 'GH').digits).toBe(digits);
        }
        const masked = maskPhone(digits);
        expect(masked.replace(/\D/g, '')).toHaveLength(3 + 4);
        expect(masked).not.toContain(national.slice(2, -2));
      }),
    );
  });

  it('refuses what is not a number', () => {
    for (const typed of ['', 'abc', '12', '+233 24', '0240000001x', '9'.repeat(20)]) {
      expect(code(() => normalisePhone(typed, 'GH')), typed).toBe('INVALID_PHONE_NUMBER');
    }
  });

  it('refuses a number of another country where only the default country is allowed', () => {
    expect(normalisePhone('+1 415 555 0123', 'GH').country).toBe('US');
    expect(code(() => normaliseLocalPhone('+1 415 555 0123', 'GH'))).toBe('INVALID_PHONE_NUMBER');
    expect(code(() => normaliseLocalPhone('+44 7700 900123', 'GH'))).toBe('INVALID_PHONE_NUMBER');
  });

  it('masks for display and for logs', () => {
    expect(maskPhone('233240000001')).toBe('+233 24 *** **01');
    expect(maskForLog('233240000001')).toBe('233******001');
    expect(phonePrefix('233240000001')).toBe('23324000');
  });
});
