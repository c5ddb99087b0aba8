import { describe, expect, it } from 'vitest';
import { keysEqual } from '../../src/proxy/middleware/require-server-key.js';

describe('keysEqual (server key compare)', () => {
  const key = 'server-key-for-tests-0123456789-abcdefghij';

  it('is true for the same key only', () => {
    expect(keysEqual(key, key)).toBe(true);
    expect(keysEqual(`${key}`, key.slice(0))).toBe(true);
    expect(keysEqual(key.replace(/j$/, 'k'), key)).toBe(false);
    expect(keysEqual(key.toUpperCase(), key)).toBe(false);
  });

  it('compares keys of different lengths without throwing (timingSafeEqual alone would)', () => {
    expect(keysEqual('', key)).toBe(false);
    expect(keysEqual(key.slice(0, -1), key)).toBe(false);
    expect(keysEqual(`${key}${key}`, key)).toBe(false);
    expect(keysEqual('é', 'e')).toBe(false);
  });
});
