import { describe, expect, it } from 'vitest';
import { countSegments } from '../../src/sandbox/segments.js';

describe('countSegments', () => {
  it.each([
    [1, 1],
    [160, 1],
    [161, 2],
    [306, 2],
    [307, 3],
  ])('counts %i GSM-7 characters as %i segment(s)', (length, segments) => {
    expect(countSegments('a'.repeat(length))).toMatchObject({ encoding: 'GSM-7', units: length, segments });
  });

  it('counts the accented letters and symbols of the GSM-7 table as GSM-7', () => {
    expect(countSegments('Prix: 5€ à Accra, Ñandù ¿ok? @£$¥').encoding).toBe('GSM-7');
  });

  it('counts extension characters as two septets', () => {
    expect(countSegments('€'.repeat(80))).toMatchObject({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(countSegments('€'.repeat(81))).toMatchObject({ encoding: 'GSM-7', units: 162, segments: 2 });
  });

  it.each([
    [70, 1],
    [71, 2],
    [134, 2],
    [135, 3],
  ])('counts %i UCS-2 characters as %i segment(s)', (length, segments) => {
    expect(countSegments('ɛ'.repeat(length))).toMatchObject({ encoding: 'UCS-2', units: length, segments });
  });

  it('turns the whole message into UCS-2 for one character outside the GSM-7 alphabet', () => {
    expect(countSegments(`${'a'.repeat(70)}ŋ`)).toMatchObject({ encoding: 'UCS-2', units: 71, segments: 2 });
  });

  it('counts a character outside the Basic Multilingual Plane as two UTF-16 units', () => {
    expect(countSegments('😀'.repeat(35))).toMatchObject({ units: 70, segments: 1 });
    expect(countSegments('😀'.repeat(36))).toMatchObject({ units: 72, segments: 2 });
  });
});
