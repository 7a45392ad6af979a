import { describe, expect, it } from 'vitest';
import { celSyntaxError, celToText, evalCel } from './cel.js';

const cel = (expr: string, vars: Record<string, unknown> = {}, lastResult?: Record<string, unknown>) => celToText(evalCel(expr, vars, { lastResult }));
type Row = [vars: Record<string, unknown> | null, expr: string, out: string];
const table = (rows: Row[]) => it.each(rows)('%j %s', (vars, expr, out) => {
  expect(cel(expr, vars ?? {})).toBe(out);
});

// Each table is the reference's own: flanksource/gomplate tests/cel_test.go, the test function named in the title.
describe('TestCelJSON', () => {
  table([
    [null, "dyn([{'name': 'John', 'age': 30}]).toJSON()", '[{"age":30,"name":"John"}]'],
    [null, "[{'name': 'John'}].toJSON()", '[{"name":"John"}]'],
    [null, "dyn({'name': 'John'}).toJSON()", '{"name":"John"}'],
    [null, "{'name': 'John'}.toJSON()", '{"name":"John"}'],
    [null, '1.toJSON()', '1'],
    [{ i: { name: 'aditya' } }, 'i.toJSON()', '{"name":"aditya"}'],
    [{ i: { name: 'John Doe' } }, 'i.toJSON().JSON().name', 'John Doe'],
    [null, `'["1", "2"]'.JSONArray()[0]`, '1'],
    [null, `'{"name": "John"}'.JSON().name`, 'John'],
    [null, `'[1, 2, 3, 4, 5]'.JSONArray()[0]`, '1'],
    [null, "{'name': 'aditya'}.toJSONPretty('\\t')", '{\n\t"name": "aditya"\n}'],
  ]);
});

describe('TestCelStrings / TestCelExtensions (functions and methods the console has)', () => {
  table([
    [null, 'HumanSize(123456)', '120.6K'],
    [null, "Semver('1.2.3').major", '1'],
    [{ v: '1.2.3-beta.1+c0ff33' }, 'Semver(v).prerelease', 'beta.1'],
    [{ old: '1.2.3', new: '1.2.3' }, 'SemverCompare(new, old)', 'true'],
    [{ old: '1.2.3', new: '1.2.4' }, 'SemverCompare(new, old)', 'false'],
    [null, `"this is a string: %s\\nand an integer: %d".format(["str", 42])`, 'this is a string: str\nand an integer: 42'],
    [null, "'HeyThERE'.lowerAscii()", 'heythere'],
    [null, "'hello'.quote()", '"hello"'],
    [null, "'hello'.repeat(2)", 'hellohello'],
    [null, "'hello'.reverse()", 'olleh'],
    [null, '"Hello$World".runeCount()', '11'],
    [{ s: 'hello world' }, "s.split(' ')", '[hello world]'],
    [{ s: 'hello world' }, 's.squote()', "'hello world'"],
    [{ s: 'hello world' }, 's.title()', 'Hello World'],
    [{ s: '    hello world\t\t\n' }, 's.trim()', 'hello world'],
    [{ s: 'hello world' }, "s.trimSuffix(' world')", 'hello'],
    [null, '[1,2, 3].min()', '1'],
    [null, '[1,2, 3].max()', '3'],
    [null, '[1,2, 3].sum()', '6'],
    [null, 'base64.encode(b"flanksource")', 'Zmxhbmtzb3VyY2U='],
    [null, 'string(base64.decode("Zmxhbmtzb3VyY2U="))', 'flanksource'],
    [{ hello: 'world' }, 'hello', 'world'],
    [{ code: 200 }, "string(code) + ' is not equal to 500'", '200 is not equal to 500'],
    [null, '9007199254740993', '9007199254740993'],
  ]);
});

describe('TestCelCrypto', () => {
  table([
    [null, "crypto.SHA1('hello')", 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d'],
    [null, "crypto.SHA224('hello')", 'ea09ae9cc6768c50fcee903ed054556e5bfc8347907f12598aa24193'],
    [null, "crypto.SHA256('hello')", '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'],
    [null, "crypto.SHA384('hello')", '59e1748777448c69de6b800d7a33bbfb9ff1b463e44354c3553bcdb9c666fa90125a3c79f90397bdf5f6a13de828684f'],
    [null, "crypto.SHA512('hello')", '9b71d224bd62f3785d96d46ad3ea3d73319bfbc2890caadae2dff72519673ca72323c3d99ba5c11d7c7acc6e14b8c5da0c4663475c2e5c3adef46f73bcdec043'],
  ]);
});

describe('TestCelAws', () => {
  table([
    [null, "aws.arnToMap('arn:aws:sns:eu-west-1:123:MMS-Topic').account", '123'],
    [{ x: [{ Name: 'hello', Value: 'world' }, { Name: 'John', Value: 'Doe' }] }, 'aws.fromAWSMap(x).hello', 'world'],
    // canary-checker fixtures/aws/cloudwatch_pass.yaml
    [{ d: [{ Name: 'InstanceId', Value: 'i-1' }] }, "fromAWSMap(d).merge({'arn': 'a'}).keys().join(',')", 'InstanceId,arn'],
  ]);
});

describe('TestCelMaps', () => {
  const m = { x: { a: 'b', c: 1, d: true, f: { a: '5' } } };
  table([
    [null, "{'a': 1, 'b': 2}.values().sum()", '3'],
    [m, 'x.a', 'b'],
    [m, 'x.c', '1'],
    [m, 'x.d', 'true'],
    [m, 'x.?e', ''],
    [m, 'x.?f.?a', '5'],
    [m, 'x.?f.?b', ''],
    [null, "{'a': 'c'}.merge({'b': 'd'}).keys().join(',')", 'a,b'],
    [null, "{'a': '1', 'b': '2', 'c': '3'}.pick(['a', 'c']).keys()", '[a c]'],
    [null, "{'a': '1', 'b': '2', 'c': '3'}.omit(['b']).keys()", '[a c]'],
    [{ a: { first: 'John' }, b: { last: 'Doe' } }, 'a.merge(b).last', 'Doe'],
    [{ a: { first: 1 }, b: { first: 2 } }, 'a.merge(b).first', '2'],
  ]);
});

describe('TestCelDates (durations print as Go\'s time.Duration)', () => {
  table([
    [null, 'HumanDuration(duration("1008h"))', '6w0d0h'],
    [null, 'Duration("7d").getHours()', '168'],
    [null, 'duration("1h") > duration("2h")', 'false'],
    [{ t: '2020-01-01T00:00:00Z' }, "Age(t) > Duration('3d')", 'true'],
    [null, "duration('24h') > Duration('3d')", 'false'],
    [null, 'duration("1h")', '1h0m0s'],
    [null, 'duration("75s")', '1m15s'],
    [null, 'duration("250ms")', '250ms'],
  ]);

  it('time.Now() and time.Since(), as the reference\'s AWS fixtures use them', () => {
    expect(cel('time.Since(timestamp("2020-01-01T00:00:00Z")) > duration("24h")')).toBe('true');
    expect(cel('time.Now() - timestamp("2020-01-01T00:00:00Z") > duration("24h")')).toBe('true');
    expect(cel('timestamp("2020-01-01T14:30:33.456Z")')).toBe('2020-01-01 14:30:33.456 +0000 UTC');
    // funcs/strings.go HumanDuration takes the CEL value itself: a plain number is not a duration there
    expect(cel('HumanDuration(3600)')).toBe('');
  });
});

describe('canary-checker fixtures', () => {
  it('minimal/cel.yaml: list slice, uuid, crypto, semver', () => {
    expect(cel("['a', 'b', 'c', 'd'].slice(1, 3).join(',')")).toBe('b,c');
    expect(cel('string(uuid.IsValid(uuid.V4()))')).toBe('true');
    expect(cel('SemverCompare("1.2.3", "1.2.4")')).toBe('false');
    expect(cel("HumanSize(1048576)")).toBe('1M');
  });

  it('datasources/folder_pass.yaml: last_result() with optional selection, and toJSON of a map', () => {
    const expr = '{"detail": {"max": string(results.?newest.modified.orValue(last_result().results.?max.orValue("now-60d")))}}.toJSON()';
    expect(cel(expr, { results: {} })).toBe('{"detail":{"max":"now-60d"}}');
    expect(cel(expr, { results: {} }, { results: { max: '2024-05-01' } })).toBe('{"detail":{"max":"2024-05-01"}}');
    expect(cel(expr, { results: { newest: { modified: '2024-06-01' } } })).toBe('{"detail":{"max":"2024-06-01"}}');
  });

  it('files and elasticsearch fixtures: .?x.orValue(default)', () => {
    expect(cel("results.?files.orValue([]).map(i, i.name).join(', ')", { results: { files: [{ name: 'a' }, { name: 'b' }] } })).toBe('a, b');
    expect(cel('results.?files.orValue([]).size()  > 0', { results: {} })).toBe('false');
    expect(cel('json.?aggregations.logs.doc_count.orValue(0) > 0', { json: { aggregations: { logs: { doc_count: 3 } } } })).toBe('true');
    expect(cel('json.?aggregations.logs.doc_count.orValue(0) > 0', { json: {} })).toBe('false');
    expect(cel('json.?aggregations.hasValue()', { json: {} })).toBe('false');
    // a plain step after an optional one must exist, as in cel-go
    expect(() => cel('json.?aggregations.logs.orValue(0)', { json: { aggregations: {} } })).toThrow(/no such key: logs/);
    // `.?` inside a string is text
    expect(cel("'a.?b' + \".?c\"")).toBe('a.?b.?c');
  });
});

describe('functions the console does not have', () => {
  it('are refused when compiled, named with their namespace', () => {
    expect(celSyntaxError('dyn(resources).all(r, k8s.isHealthy(r))')).toBe('unknown function k8s.isHealthy()');
    expect(celSyntaxError('jmespath("a", x)')).toBe('unknown function jmespath()');
    expect(celSyntaxError('time.Now() > timestamp("2020-01-01T00:00:00Z") && HumanSize(1) != ""')).toBeNull();
  });
});
