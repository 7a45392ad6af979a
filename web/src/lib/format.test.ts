import { describe, expect, it } from 'vitest';
import { formatAge, formatCurrency, formatDuration, formatDurationNs, formatPercent, formatUptime, parseDurationNs } from './format';

describe('formatDuration', () => {
  it('uses ms under a second, seconds under a minute, then minutes, then hours', () => {
    expect(formatDuration(0)).toBe('0ms');
    expect(formatDuration(2.345)).toBe('2.35ms');
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(999)).toBe('999ms');
    expect(formatDuration(1000)).toBe('1s');
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(59_990)).toBe('59.99s');
    expect(formatDuration(60_000)).toBe('1m');
    expect(formatDuration(5 * 60_000 + 30_000)).toBe('5m 30s');
    expect(formatDuration(3_600_000)).toBe('1h');
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000)).toBe('2h 5m');
    expect(formatDuration(50 * 3_600_000)).toBe('50h');
  });

  it('leaves missing values empty', () => {
    expect(formatDuration(undefined)).toBe('');
    expect(formatDuration(Number.NaN)).toBe('');
  });
});

describe('formatAge', () => {
  const now = Date.parse('2026-03-18T10:00:00Z');
  it('reads compactly', () => {
    expect(formatAge('2026-03-18T10:00:00Z', now)).toBe('just now');
    expect(formatAge('2026-03-18T09:59:15Z', now)).toBe('45s ago');
    expect(formatAge('2026-03-18T09:55:00Z', now)).toBe('5m ago');
    expect(formatAge('2026-03-18T07:00:00Z', now)).toBe('3h ago');
    expect(formatAge('2026-03-16T10:00:00Z', now)).toBe('2d ago');
    expect(formatAge('2025-11-18T10:00:00Z', now)).toBe('4mo ago');
    expect(formatAge('2024-03-18T10:00:00Z', now)).toBe('2y ago');
    expect(formatAge('2026-03-18T10:05:00Z', now)).toBe('in 5m');
    expect(formatAge(null, now)).toBe('');
    expect(formatAge('not a date', now)).toBe('');
  });
});

describe('numbers', () => {
  it('shows percentages with one decimal', () => {
    expect(formatPercent(99.94)).toBe('99.9%');
    expect(formatPercent(100)).toBe('100.0%');
    expect(formatUptime(999, 1)).toBe('99.9%');
    expect(formatUptime(0, 0)).toBe('');
  });

  it('abbreviates money with k above 1000', () => {
    expect(formatCurrency(12.5)).toBe('$12.50');
    expect(formatCurrency(1000)).toBe('$1000.00');
    expect(formatCurrency(1500)).toBe('$1.5k');
    expect(formatCurrency(2_500_000)).toBe('$2.5M');
  });
});

describe('durations in nanoseconds', () => {
  it('parses h, m, s, d, w suffixes', () => {
    expect(parseDurationNs('30s')).toBe(30e9);
    expect(parseDurationNs('1h30m')).toBe(5400e9);
    expect(parseDurationNs('2d')).toBe(172_800e9);
    expect(parseDurationNs('1w')).toBe(604_800e9);
    expect(parseDurationNs('10')).toBeNaN();
    expect(parseDurationNs('abc')).toBeNaN();
    expect(formatDurationNs(5400e9)).toBe('1h30m');
  });
});
