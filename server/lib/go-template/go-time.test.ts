import { describe, expect, it } from 'vitest';
import { goTimeParse } from './cel-time.js';
import { celToText, evalCel } from './cel.js';

describe('time.Parse with Go layouts', () => {
  // the examples of Go's time.Parse documentation (an unknown zone abbreviation reads as offset 0)
  it.each([
    ['2006-Jan-02', '2013-Feb-03', '2013-02-03T00:00:00.000Z'],
    ['Jan 2, 2006 at 3:04pm (MST)', 'Feb 3, 2013 at 7:54pm (PST)', '2013-02-03T19:54:00.000Z'],
    ['2006-01-02T15:04:05Z07:00', '2006-01-02T15:04:05+07:00', '2006-01-02T08:04:05.000Z'],
    ['2006-01-02 15:04:05.000', '2024-01-15 10:30:00.123', '2024-01-15T10:30:00.123Z'],
    ['Monday, 02-Jan-06 15:04:05 MST', 'Tuesday, 26-Sep-23 08:00:00 UTC', '2023-09-26T08:00:00.000Z'],
  ])('%s reads %s', (layout, value, iso) => {
    expect(goTimeParse(layout, value).toISOString()).toBe(iso);
  });

  it('refuses text that does not match the layout, and is what CEL time.Parse returns (canary-checker minimal/cel.yaml)', () => {
    expect(() => goTimeParse('2006-01-02', '26/09/2023')).toThrow('parsing time "26/09/2023" as "2006-01-02": cannot parse');
    expect(() => goTimeParse('2006-01-02', '2023-13-01')).toThrow(/out of range/);
    expect(celToText(evalCel('string(time.Parse("2006-01-02", "2023-09-26"))', {}))).toBe('2023-09-26T00:00:00Z');
  });
});
