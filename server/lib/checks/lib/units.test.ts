import { describe, expect, it } from 'vitest';
import { formatDuration, formatSize, parseDuration, parseSize, parseTime } from './units.js';

describe('units', () => {
  it('parses Go durations with day/week/year units', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('2d')).toBe(172_800_000);
    expect(parseDuration('1w')).toBe(604_800_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('0')).toBe(0);
    for (const bad of ['', '10', 'abc', '1x', 'h']) expect(parseDuration(bad)).toBeUndefined();
  });

  it('parses 1024-based sizes', () => {
    expect(parseSize('10')).toBe(10);
    expect(parseSize('10b')).toBe(10);
    expect(parseSize('10kb')).toBe(10_240);
    expect(parseSize('5MB')).toBe(5 * 1024 ** 2);
    expect(parseSize('1G')).toBe(1024 ** 3);
    expect(parseSize('1MiB')).toBe(1024 ** 2);
    expect(parseSize(42)).toBe(42);
    for (const bad of ['', 'x', '5 apples', '-1kb']) expect(parseSize(bad)).toBeUndefined();
  });

  it('parses RFC 3339 and date math', () => {
    const now = new Date('2024-05-10T12:34:56Z');
    expect(parseTime('2024-01-02T03:04:05Z')?.toISOString()).toBe('2024-01-02T03:04:05.000Z');
    expect(parseTime('2024-01-02T03:04:05')?.toISOString()).toBe('2024-01-02T03:04:05.000Z');
    expect(parseTime('2024-01-02T03:04:05+02:00')?.toISOString()).toBe('2024-01-02T01:04:05.000Z');
    expect(parseTime('now', now)?.toISOString()).toBe(now.toISOString());
    expect(parseTime('now-1h', now)?.toISOString()).toBe('2024-05-10T11:34:56.000Z');
    expect(parseTime('now-1d/d', now)?.toISOString()).toBe('2024-05-09T00:00:00.000Z');
    expect(parseTime('now-1M', now)?.toISOString()).toBe('2024-04-10T12:34:56.000Z');
    for (const bad of ['yesterday', 'now-1x', '2024-13-45']) expect(parseTime(bad, now)).toBeUndefined();
  });

  it('formats ages and sizes for messages', () => {
    expect(formatDuration(1_830_000)).toBe('30m30s');
    expect(formatDuration(90_061_000)).toBe('1d1h');
    expect(formatDuration(500)).toBe('500ms');
    expect(formatSize(2048)).toBe('2KB');
    expect(formatSize(1536)).toBe('1.5KB');
    expect(formatSize(10)).toBe('10B');
  });
});
