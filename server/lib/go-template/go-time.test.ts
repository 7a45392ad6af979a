import { describe, expect, it } from 'vitest';
import { goTimeFormat, goTimeParse } from './go-time.js';
import { celToText, evalCel } from '../cel.js';

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

describe('Time.Format with Go layouts', () => {
  const t = new Date('2009-11-10T23:04:05.120Z');
  // Go's time package examples (Time.Format), for a time in UTC
  it.each([
    ['2006-01-02T15:04:05Z07:00', '2009-11-10T23:04:05Z'],
    ['Mon Jan _2 15:04:05 MST 2006', 'Tue Nov 10 23:04:05 UTC 2009'],
    ['Monday, 2 January 2006', 'Tuesday, 10 November 2009'],
    ['3:04PM', '11:04PM'],
    ['2006-01-02 15:04:05.000', '2009-11-10 23:04:05.120'],
    ['15:04:05.999', '23:04:05.12'],
    ['02/01/06 -0700 002', '10/11/09 +0000 314'],
  ])('%s', (layout, text) => {
    expect(goTimeFormat(t, layout)).toBe(text);
  });
});
