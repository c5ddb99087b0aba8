import { describe, expect, it } from 'vitest';
import { BoundedMap, Throttle } from '../../src/proxy/bounded-map.js';

describe('BoundedMap', () => {
  it('drops the oldest key when a new one comes to a full map', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 3).set('c', 4);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });
});

describe('Throttle', () => {
  it('lets a key through at most once per gap, each key on its own', () => {
    let now = 1_000;
    const throttle = new Throttle(500, () => now);
    expect(throttle.pass('a')).toBe(true);
    expect(throttle.pass('a')).toBe(false);
    expect(throttle.pass('b')).toBe(true);
    now += 499;
    expect(throttle.pass('a')).toBe(false);
    now += 1;
    expect(throttle.pass('a')).toBe(true);
  });
});
