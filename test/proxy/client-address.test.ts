import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/proxy/client-address.js';
import { startHarness } from './helpers.js';

describe('addressKey', () => {
  it('keeps IPv4 as it is, reads IPv4-mapped IPv6 as IPv4, and groups IPv6 by its prefix', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(addressKey('2001:db8:1:2::1')).toBe(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:fffe'));
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey('2001:db8:1:2::1', 48)).toBe(addressKey('2001:db8:1:ffff::1', 48));
    expect(addressKey('2001:db8:1:2::1', 128)).toBe('2001:db8:1:2:0:0:0:1/128');
    expect(addressKey('::1')).toBe('0:0:0:0:0:0:0:0/64');
    expect(addressKey('64:ff9b::192.0.2.33', 128)).toBe('64:ff9b:0:0:0:0:c000:221/128');
    expect(addressKey('unknown')).toBe('unknown');
  });
});

describe('per-address limits over IPv6 (finding 9)', () => {
  it('counts sixty account lookups from sixty addresses of one /64 as one client', async () => {
    const h = await startHarness({ trustProxy: true });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 35; i++) {
        const token = await h.mintPayment();
        const res = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token, headers: { 'x-forwarded-for': `2001:db8:77:1::${(i + 1).toString(16)}` } });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 30)).toEqual(Array(30).fill(200));
      expect(statuses.slice(30)).toEqual(Array(5).fill(429));
      // Another /64 is another client.
      const other = await h.post('/accounts/lookup', { msisdn: '0240000001' }, { token: await h.mintPayment(), headers: { 'x-forwarded-for': '2001:db8:77:2::1' } });
      expect(other.status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
