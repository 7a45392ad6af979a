import { describe, expect, it } from 'vitest';
import { humanBytes, humanDuration, semverCompare, semverMap, toGoString, toInt64, toJSON, toJSONPretty } from './gomplate-values.js';

const NS = { ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

describe('humanDuration (flanksource/gomplate strings/duration_test.go TestHumanizeDuration)', () => {
  it.each([
    [5n, '5ns'], [5n * NS.ms, '5ms'], [5n * NS.s, '5s'], [75n * NS.s, '1m15s'], [121n * NS.s, '2m1s'],
    [431n * NS.s, '7m11s'], [65n * NS.m, '1h5m'], [125n * NS.m, '2h5m'], [23n * NS.h, '23h'], [32n * NS.h, '1d8h'],
    [49n * NS.h, '2d1h'], [320n * NS.h, '1w6d8h'], [3200n * NS.h, '19w0d8h'],
    // tests/cel_test.go TestCelDates: HumanDuration(duration("1008h"))
    [1008n * NS.h, '6w0d0h'],
  ])('%s ns is %s', (ns, text) => {
    expect(humanDuration(ns)).toBe(text);
  });

  it('keeps the reference\'s removal of every "0s" and "0m" (10s prints as 1, as it does there)', () => {
    expect(humanDuration(10n * NS.s)).toBe('1');
    expect(humanDuration(-75n * NS.s)).toBe('-1m15s');
    expect(humanDuration(0n)).toBe('0s');
    expect(humanDuration(1500n * NS.ms)).toBe('1.5s');
  });
});

describe('humanBytes (strings/bytes_test.go TestByteSizeFormating; tests/cel_test.go HumanSize(123456))', () => {
  const K = 1024;
  it.each([
    [0, '0B'], [10, '10B'], [1023, '1023B'], [K, '1K'], [K * K, '1M'], [K * K + 53, '1M'], [5 * K * K, '5M'],
    [K ** 3, '1G'], [K ** 4, '1T'], [10 * K ** 4, '10T'], [10 * K ** 5, '10P'], [10 * K ** 6, '10E'], [123456, '120.6K'],
  ])('%s bytes is %s', (bytes, text) => {
    expect(humanBytes(bytes)).toBe(text);
  });

  it('reads a string of digits, else NaN', () => {
    expect(humanBytes('2048')).toBe('2K');
    expect(humanBytes('2k')).toBe('NaN');
  });
});

describe('semver (tests/cel_test.go, tests/gomplate_test.go)', () => {
  it('SemverCompare(constraint, version) as Masterminds/semver checks it', () => {
    expect(semverCompare('1.2.3', '1.2.3')).toBe(true);
    expect(semverCompare('1.2.4', '1.2.3')).toBe(false);
    expect(semverCompare('1.2.3', '1.2.4')).toBe(false);
    expect(semverCompare('>= 1.2, < 2.0', 'v1.5')).toBe(true);
    expect(semverCompare('~1.2', '1.3.0')).toBe(false);
    expect(semverCompare('^1.2 || >= 3', '3.1.0')).toBe(true);
    expect(() => semverCompare('1.2.3', 'not-a-version')).toThrow(/invalid semantic version/);
  });

  it('Semver(v) parts as strings', () => {
    expect(semverMap('1.2.3').major).toBe('1');
    expect(semverMap('1.2.3-beta.1+c0ff33')).toMatchObject({ prerelease: 'beta.1', metadata: 'c0ff33', original: '1.2.3-beta.1+c0ff33' });
  });
});

describe('toJSON / toJSONPretty (tests/cel_test.go TestCelJSON)', () => {
  it('sorts keys, keeps HTML characters, indents with the given string', () => {
    expect(toJSON([{ name: 'John', age: 30 }])).toBe('[{"age":30,"name":"John"}]');
    expect(toJSON({ a: '<b>&' })).toBe('{"a":"<b>&"}');
    expect(toJSONPretty('\t', { name: 'aditya' })).toBe('{\n\t"name": "aditya"\n}');
  });
});

describe('conv (conv/conv.go)', () => {
  it('ToInt64 parses strings with commas, truncates floats; ToString prints nil and maps as the reference does', () => {
    expect([toInt64('1,234'), toInt64('3.9'), toInt64('0x10'), toInt64('x'), toInt64(true), toInt64(-2.5)]).toEqual([1234, 3, 16, 0, 1, -2]);
    expect([toGoString(null), toGoString({ a: 1 }), toGoString([1, 'a']), toGoString(2.5)]).toEqual(['nil', '{"a":1}', '[1 a]', '2.5']);
  });
});
