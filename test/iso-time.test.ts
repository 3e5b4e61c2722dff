import { describe, expect, it } from 'vitest';
import { isoInstant, isoToMs } from '../src/io/iso-time.js';

// src/io/iso-time.ts against Date.UTC, which takes the fields as numbers and so parses nothing.

describe('isoInstant', () => {
  it('reads a time with Z, T or a space, and any case', () => {
    const ms = Date.UTC(2025, 11, 31, 0, 0, 31);
    expect(ms).toBe(1767139231000);
    for (const text of ['2025-12-31T00:00:31Z', '2025-12-31 00:00:31Z', '2025-12-31t00:00:31z'])
      expect(isoInstant(text)).toEqual({ ms, nanos: 0 });
  });

  it('reads a time without an offset as UTC, whatever the machine’s zone', () => {
    expect(isoInstant('2026-07-01T12:30')).toEqual({ ms: Date.UTC(2026, 6, 1, 12, 30), nanos: 0 });
    expect(isoInstant('2026-07-01T12:30:15')).toEqual({ ms: Date.UTC(2026, 6, 1, 12, 30, 15), nanos: 0 });
  });

  it('subtracts the offset in each of its forms', () => {
    // 03:04:05 at +02:30 is 00:34:05 UTC; at -05:00 it is 08:04:05 UTC.
    const east = Date.UTC(2026, 0, 2, 0, 34, 5);
    for (const text of ['2026-01-02T03:04:05+02:30', '2026-01-02T03:04:05+0230'])
      expect(isoInstant(text)?.ms).toBe(east);
    expect(isoInstant('2026-01-02T03:04:05+02')?.ms).toBe(Date.UTC(2026, 0, 2, 1, 4, 5));
    expect(isoInstant('2026-01-02T03:04:05-05:00')?.ms).toBe(Date.UTC(2026, 0, 2, 8, 4, 5));
    // Across midnight into the previous day, month and year.
    expect(isoInstant('2026-01-01T01:00:00+03:00')?.ms).toBe(Date.UTC(2025, 11, 31, 22, 0, 0));
  });

  it('keeps the fraction to the nanosecond: whole milliseconds and the nanoseconds past them', () => {
    const second = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(isoInstant('2026-01-02T03:04:05.123456789Z')).toEqual({ ms: second + 123, nanos: 456789 });
    expect(isoInstant('2026-01-02T03:04:05,5Z')).toEqual({ ms: second + 500, nanos: 0 });
    expect(isoInstant('2026-01-02T03:04:05.000001Z')).toEqual({ ms: second, nanos: 1000 });
    expect(isoToMs('2026-01-02T03:04:05.123456789Z')).toBe(second + 123.456789);
    // Ten digits is past the nanosecond: not a time this reader takes.
    expect(isoInstant('2026-01-02T03:04:05.1234567891Z')).toBeUndefined();
  });

  it('takes a date alone (midnight UTC) only where allowed', () => {
    expect(isoInstant('2026-03-01')).toBeUndefined();
    expect(isoInstant('2026-03-01', true)).toEqual({ ms: Date.UTC(2026, 2, 1), nanos: 0 });
    expect(isoToMs('2026-03-01', true)).toBe(Date.UTC(2026, 2, 1));
    expect(isoToMs('2026-03-01')).toBeUndefined();
  });

  it('refuses dates and times that do not exist, and other text', () => {
    expect(isoInstant('2024-02-29T00:00Z')?.ms).toBe(Date.UTC(2024, 1, 29)); // a leap year
    for (const text of [
      '2026-02-29T00:00Z', // 2026 is not a leap year
      '2026-04-31T00:00Z',
      '2026-13-01T00:00Z',
      '2026-00-10T00:00Z',
      '2026-01-02T24:00Z',
      '2026-01-02T23:60Z',
      '2026-01-02T23:59:60Z', // no leap seconds
      '2026-01-02T03:04+24:00',
      '2026-01-02T03:04+05:60',
      '2026-1-02T03:04Z',
      '2026-01-02T03Z',
      '2026-01-02T03:04:05Z trailing',
      ' 2026-01-02T03:04:05Z',
      '1767139231',
      '',
    ])
      expect([text, isoInstant(text, true)]).toEqual([text, undefined]);
  });
});
