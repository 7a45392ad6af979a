import { describe, expect, it } from 'vitest';
import { formatValue, NO_VALUE, sprint, sprintf } from './format.js';

// Outputs as Go's fmt package prints them (fmt documentation and its print_test.go cases).
describe('Go fmt printing', () => {
  it('%v of JSON-like values', () => {
    expect(formatValue({ b: [1, 'x'], a: null })).toBe('map[a:<nil> b:[1 x]]');
    expect(formatValue(NO_VALUE)).toBe('<no value>');
    expect([formatValue(1e21), formatValue(1e20), formatValue(0.0001), formatValue(0.00001), formatValue(-0.5)]).toEqual(['1e+21', '100000000000000000000', '0.0001', '1e-05', '-0.5']);
    expect(formatValue(new Date('2020-01-01T14:30:33.456Z'))).toBe('2020-01-01 14:30:33.456 +0000 UTC');
  });

  it('Sprint adds spaces only between operands when neither is a string', () => {
    expect(sprint(['a', 1, 2, 'b', 'c'])).toBe('a1 2bc');
  });

  it('Sprintf verbs, flags, width and precision, and wrong or missing operands', () => {
    expect(sprintf('%s|%q|%d|%5d|%-5d|%05d|%+d|%x|%X|%c|%t|%%', ['s', 'q', 42, 42, 42, 42, 42, 255, 255, 65, true])).toBe('s|"q"|42|   42|42   |00042|+42|ff|FF|A|true|%');
    expect(sprintf('%f|%.2f|%8.3f|%e|%g|%.3s|%v', [3.14159, 3.14159, 3.14159, 1234.5678, 0.000012, 'abcdef', [1, 2]])).toBe('3.141590|3.14|   3.142|1.234568e+03|1.2e-05|abc|[1 2]');
    expect(sprintf('%d', ['x'])).toBe('%!d(string=x)');
    expect(sprintf('%d %d', [1])).toBe('1 %!d(MISSING)');
    expect(sprintf('%d', [1, 2])).toBe('1%!(EXTRA int=2)');
  });
});
