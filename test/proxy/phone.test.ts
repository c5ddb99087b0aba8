import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/proxy/bounded-map.js';
import { ProxyError } from '../../src/proxy/errors.js';
import { isMasked, maskForLog, maskPhone, normaliseLocalPhone, normalisePhone, phonePrefix } from '../../src/proxy/phone.js';

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
        // A masked number stays as it is (a record's number at rest is shown as it was masked).
        expect(isMasked(masked) && maskPhone(masked) === masked && maskForLog(masked) === masked && !isMasked(digits)).toBe(true);
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

describe('phone: numbers remembered', () => {
  it('answers a repeat with the same frozen result, per default country', () => {
    const first = normalisePhone('024 000 0009', 'GH');
    expect(normalisePhone('024 000 0009', 'GH')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // The same typed digits mean another number, or none, under another default country.
    expect(code(() => normalisePhone('024 000 0009', 'NG'))).not.toBe('none');
    expect(normalisePhone('0803 000 0009', 'NG').digits).toBe('2348030000009');
  });

  it('keeps refusing an invalid number, and keeps the country rule on a remembered number', () => {
    for (let i = 0; i < 2; i++) expect(code(() => normalisePhone('0240', 'GH'))).toBe('INVALID_PHONE_NUMBER');
    normalisePhone('+234 803 000 0009', 'GH');
    expect(code(() => normaliseLocalPhone('+234 803 000 0009', 'GH'))).toBe('INVALID_PHONE_NUMBER');
  });
});

describe('BoundedMap', () => {
  it('drops the oldest entry when a new key comes to a full map, never on an update', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 3);
    expect([...map]).toEqual([['a', 3], ['b', 2]]);
    map.set('c', 4);
    expect([...map]).toEqual([['b', 2], ['c', 4]]);
  });
});
