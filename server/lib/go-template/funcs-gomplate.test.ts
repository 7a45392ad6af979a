import { describe, expect, it } from 'vitest';
import { renderGoTemplate } from '../go-template.js';

const render = (t: string, data: Record<string, unknown> = {}, lastResult?: Record<string, unknown>) => renderGoTemplate(t, data, { lastResult });

describe('gomplate functions in templates (flanksource/gomplate tests/gomplate_test.go TestGomplate)', () => {
  it.each([
    [{ age: 75_000_000_000 }, '{{ .age | humanDuration  }}', '1m15s'],
    [{ size: 123456 }, '{{ .size | humanSize }}', '120.6K'],
    [{ old: '1.2.3', new: '1.2.3' }, '{{  .old | semverCompare .new }}', 'true'],
    [{ old: '1.2.3', new: '1.2.4' }, '{{  .old | semverCompare .new }}', 'false'],
    [{ hello: 'world' }, '{{ .hello }}', 'world'],
    [{ results: { passed: 1, suites: [{ name: 'hi', passed: 0, failed: 2, duration: 0 }] } },
      '{{.results.passed}}{{ range $r := .results.suites}}{{$r.name}} ✅ {{$r.passed}} ❌ {{$r.failed}} in 🕑 {{$r.duration}}{{end}}',
      '1hi ✅ 0 ❌ 2 in 🕑 0'],
    [{ results: { rows: [{ name: 'apm-hub' }, { name: 'config-db' }] } },
      '{{range $r := .results.rows }}{{range $x, $y := $r }}{{ $y }}{{end}}{{end}}', 'apm-hubconfig-db'],
  ])('%j %s', (data, template, out) => {
    expect(render(template, data)).toBe(out);
  });
});

describe('gomplate namespaces and aliases (funcs/strings.go, conv.go, data.go, math.go, coll.go)', () => {
  it('trim: piped alone it trims white space (as playbooks write `x | trim`); with a cutset it trims that', () => {
    expect(render('[{{ .out | trim }}]', { out: '  hello\n' })).toBe('[hello]');
    expect(render('[{{ trim "xxhixx" "x" }}]')).toBe('[hi]');
  });
  it('strings.* take the string last, so they pipe', () => {
    expect(render('{{ strings.ToLower "ABC" }} {{ "abc" | strings.ToUpper }} {{ "a-b-c" | strings.ReplaceAll "-" "+" }}')).toBe('abc ABC a+b+c');
    expect(render('{{ "  x " | strings.TrimSpace }}|{{ "xxhixx" | strings.Trim "x" }}|{{ "hello" | strings.TrimPrefix "he" }}|{{ "hello world" | strings.Title }}')).toBe('x|hi|llo|Hello World');
    expect(render('{{ "a,b" | strings.Split "," }} {{ "abc" | strings.Contains "b" }} {{ "abc" | strings.HasPrefix "a" }} {{ "ab" | strings.Repeat 2 }}')).toBe('[a b] true true abab');
    // the legacy aliases take the string first, as Go's strings package does
    expect(render('{{ contains "abc" "b" }} {{ hasPrefix "abc" "a" }} {{ split "a,b" "," }} {{ toUpper "x" }} {{ "Q" | quote }} {{ "Q" | squote }}')).toBe('true true [a b] X "Q" \'Q\'');
  });

  it('conv.* and default', () => {
    expect(render('{{ if gt (conv.ToInt .failed) 0 }}failed{{ end }}', { failed: '2' })).toBe('failed');
    expect(render('{{ conv.ToString 2 }} {{ conv.ToFloat64 "1.5" }} {{ conv.ToBool "yes" }} {{ .x | default "none" }} {{ join .l ", " }}', { l: [1, 'a'] })).toBe('2 1.5 true none 1, a');
  });

  it('data: toJSON, toJSONPretty, json', () => {
    expect(render('{{ . | toJSONPretty " " }}', { b: 1, a: [true] })).toBe('{\n "a": [\n  true\n ],\n "b": 1\n}');
    expect(render('{{ .m | toJSON }} {{ (json .s).name }} {{ (.s | data.JSON).name }}', { m: { z: 1, a: null }, s: '{"name":"John Doe"}' })).toBe('{"a":null,"z":1} John Doe John Doe');
  });

  it('math and coll', () => {
    expect(render('{{ add "1.0" 2 }} {{ add "1" 2 }} {{ mul "1.5" 2 }}')).toBe('3 3 3');
    expect(render('{{ add 1 2 3 }} {{ sub 5 4 }} {{ mul 2 3 }} {{ div 7 2 }} {{ rem 7 3 }} {{ math.Add 1.5 1 }} {{ seq 3 }}')).toBe('6 1 6 3.5 1 2.5 [1 2 3]');
    expect(render('{{ $d := dict "a" 1 "b" 2 }}{{ $d.b }} {{ keys $d }} {{ has $d "a" }} {{ slice 1 2 }} {{ coalesce "" 0 "x" }} {{ ternary "y" "n" true }}')).toBe('2 [a b] true [1 2] x y');
    expect(render('{{ (merge .a .b).k }} {{ (merge .a .b).only }}', { a: { k: 'first' }, b: { k: 'second', only: 'b' } })).toBe('first b');
    expect(() => render('{{ div 1 0 }}')).toThrow(/error calling div: error: division by 0/);
  });

  it('last_result is the previous result, or the reference\'s empty status (canary-checker fixtures/datasources)', () => {
    const t = '{{- if last_result.results.max }}{{ last_result.results.max }}{{- else}}none{{- end}}';
    expect(render(t)).toBe('none');
    expect(render(t, {}, { results: { max: '2024-01-01' } })).toBe('2024-01-01');
    expect(render('{{- (index last_result.results.rows 0).max }}', {}, { results: { rows: [{ max: 7 }] } })).toBe('7');
  });
});

describe('time in templates (funcs/time.go)', () => {
  it('time.Now, ParseDuration with days, Add and Format, as tests/gomplate_test.go uses them', () => {
    const out = render('{{ ((time.Now).Add (time.ParseDuration .delay)).Format "Monday, 2 January 2006" }}', { delay: '30d' });
    // the reference's test computes its expected value from the clock the same way
    const want = new Date(Date.now() + 30 * 86_400_000);
    const name = (o: Intl.DateTimeFormatOptions) => want.toLocaleDateString('en-GB', { ...o, timeZone: 'UTC' });
    expect(out).toBe(`${name({ weekday: 'long' })}, ${want.getUTCDate()} ${name({ month: 'long' })} ${want.getUTCFullYear()}`);
  });

  it('parses, subtracts and prints times and durations as Go does', () => {
    expect(render('{{ (time.Parse "2006-01-02" "2023-09-26").Format "Jan 2, 2006" }}')).toBe('Sep 26, 2023');
    expect(render('{{ time.Parse "2006-01-02" "2023-09-26" }}')).toBe('2023-09-26 00:00:00 +0000 UTC');
    expect(render('{{ time.ParseDuration "1h30m" }} {{ (time.ParseDuration "90s").Seconds }} {{ time.ParseDuration "1008h" | humanDuration }}')).toBe('1h30m0s 90 6w0d0h');
    expect(render('{{ ((time.Parse "2006-01-02" "2023-09-27").Sub (time.Parse "2006-01-02" "2023-09-26")).Hours }}')).toBe('24');
    expect(render('{{ (time.Unix 0).Format "2006-01-02T15:04:05Z07:00" }} {{ (time.Unix 86400).YearDay }}')).toBe('1970-01-01T00:00:00Z 2');
    expect(render('{{ dict "t" (time.Unix 0) | toJSON }}')).toBe('{"t":"1970-01-01T00:00:00.000Z"}');
    expect(() => render('{{ time.ParseDuration "soon" }}')).toThrow(/time: invalid duration soon/);
  });
});
