import { describe, expect, it } from 'vitest';
import type { Outcome, RunnableCheck } from './runner.js';
import { parseCheck } from './spec.js';
import { transformOutcome, transformProblems } from './transform.js';
import { runJavascript } from '../../lib/js-sandbox.js';

// transformOutcome over a check's parsed spec and a made-up result; storing is tested in
// tests/server/health-transform.test.ts.

const check = (spec: Record<string, unknown>): RunnableCheck => ({ id: 'c1', canaryId: 'k1', type: 'exec', name: 'parent', spec: { name: 'parent', script: 'true', ...spec } });

async function run(spec: Record<string, unknown>, result: Partial<Outcome> = {}) {
  const c = check(spec);
  const parsed = parseCheck('exec', c.spec);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => `${p.path}: ${p.message}`).join('; '));
  const out: Outcome = { pass: true, invalid: false, duration: 12, data: { stdout: 'a,b' }, detail: { big: 'blob' }, start: new Date(0), ...result };
  return transformOutcome(c, parsed.common, out);
}

describe('transformOutcome', () => {
  it('one unnamed object sets only the fields it has; $delete drops the detail', async () => {
    const out = await run({ transform: { expr: "{'pass': false, 'error': 'bad', 'data': {'extra': 1}, 'Duration': 5}.toJSON()" } });
    expect(out).toMatchObject({ pass: false, error: 'bad', duration: 5, detail: { big: 'blob' }, data: { stdout: 'a,b', extra: 1 }, transformed: [] });
    expect((await run({ transform: { expr: "{'detail': '$delete'}" } })).detail).toBeUndefined();
  });

  it('named results take defaults from the check; its own result keeps no detail', async () => {
    const out = await run({
      transformDeleteStrategy: 'MarkHealthy',
      transform: { expr: "stdout.split(',').map(n, {'name': n, 'labels': {'n': n, 'count': 1}, 'transformDeleteStrategy': n == 'b' ? 'Ignore' : ''})" },
    });
    expect(out.detail).toBeUndefined();
    expect(out.transformed).toMatchObject([
      { name: 'a', type: 'exec', pass: false, invalid: false, duration: 0, labels: { n: 'a', count: '1' }, transformDeleteStrategy: 'MarkHealthy' },
      { name: 'b', type: 'exec', transformDeleteStrategy: 'Ignore' },
    ]);
  });

  it('an empty list fails the check only with markFailOnEmpty', async () => {
    expect(await run({ transform: { expr: '[]' } })).toMatchObject({ pass: true, transformed: [], detail: undefined });
    expect(await run({ markFailOnEmpty: true, transform: { expr: '[]' } }))
      .toMatchObject({ pass: false, error: 'empty result returned from transformation', transformed: [] });
  });

  it('refuses, as an invalid result, what the reference refuses or this console does not do', async () => {
    const cases: Array<[string, string]> = [
      ["[{'message': 'x'}, {'message': 'y'}]", 'transformation returned more than 1 entry without a name'],
      ["[{'name': 'parent'}]", 'a result is named "parent", as the check itself'],
      ["[{'name': 'a'}, {'message': 'no name'}]", 'a result in a list needs a name'],
      ["{'name': 'c', 'spec': {'http': []}}", 'creating canaries from a transform is not supported'],
      ["[{'name': 'a', 'pass': 'yes'}]", 'pass must be true or false'],
      ["[{'name': 'a', 'deletedAt': 'yesterday'}]", 'deletedAt must be an RFC 3339 time'],
      ["'plain words'", 'the transform returned text that is not JSON: plain words'],
    ];
    for (const [expr, why] of cases) {
      const out = await run({ transform: { expr } });
      expect(out, expr).toMatchObject({ pass: false, invalid: true, transformed: undefined, detail: undefined });
      expect(out.error, expr).toContain(`error transforming result: `);
      expect(out.error, expr).toContain(why);
    }
  });

  it('leaves an invalid result alone', async () => {
    const out = await run({ transform: { expr: "{'pass': true}" } }, { pass: false, invalid: true, error: 'bad spec' });
    expect(out).toMatchObject({ pass: false, invalid: true, error: 'bad spec' });
    expect(out.transformed).toBeUndefined();
  });

  it('sees check, canary, pass, message and the result fields (also as results)', async () => {
    const out = await run({
      transform: { expr: "{'message': [check.name, canary.id, string(pass), results.stdout, stdout, string(duration)].join('/')}" },
    });
    expect(out.message).toBe('parent/k1/true/a,b/a,b/12');
  });
});

describe('transformProblems', () => {
  it('one of expr, template or javascript; each checked as far as it can be before a run', () => {
    expect(transformProblems({ expr: '[]' })).toEqual([]);
    expect(transformProblems({ javascript: 'JSON.stringify([])' })).toEqual([]);
    expect(transformProblems({})).toEqual([{ path: [], message: 'a transform needs one of expr (CEL), template or javascript' }]);
    expect(transformProblems({ expr: '[]', template: '[]' })).toEqual([{ path: ['template'], message: 'a transform takes one of expr, template or javascript, not expr and template' }]);
    expect(transformProblems({ expr: '1 +' })[0]).toMatchObject({ path: ['expr'], message: expect.stringMatching(/^invalid CEL: /) });
    expect(transformProblems({ jsonPath: '$.x' })).toEqual([{ path: ['jsonPath'], message: 'transform.jsonPath is not supported; use transform.expr (CEL)' }]);
  });
});

describe('runJavascript', () => {
  it('returns a string as it is and any other value as JSON, with the globals given', async () => {
    expect(await runJavascript('JSON.stringify({n: n + 1})', { n: 1 })).toBe('{"n":2}');
    expect(await runJavascript('({a: _.pluck(items, "x")})', { items: [{ x: 1 }, { x: 2 }] })).toBe('{"a":[1,2]}');
  });

  it('has no host objects, and a script cannot leave its runtime for the next one', async () => {
    expect(await runJavascript('[typeof process, typeof require, typeof setTimeout, typeof console].join()', {})).toBe('undefined,undefined,undefined,undefined');
    await runJavascript('globalThis.leak = 1; Object.prototype.polluted = 1; 0', {});
    expect(await runJavascript('typeof leak + "," + typeof ({}).polluted', {})).toBe('undefined,undefined');
  });

  it('stops recursion, an endless loop and a memory bomb with the reason', async () => {
    await expect(runJavascript('function f() { return f(); } f()', {})).rejects.toThrow('javascript stopped: stack overflow (too deep recursion)');
    await expect(runJavascript('for (;;) {}', {}, { timeMs: 100 })).rejects.toThrow('javascript stopped after 100 ms (time limit)');
    await expect(runJavascript("'x'.repeat(1 << 24).length", {}, { memoryBytes: 8 * 1024 * 1024 })).rejects.toThrow('javascript ran out of memory (limit 8 MiB)');
    // a native operation that never yields to the interpreter's checks: the worker is terminated, a new one serves on
    await expect(runJavascript('var a = []; for (;;) a.push(new Array(100000).fill(1))', {}, { timeMs: 100 })).rejects.toThrow(/javascript (stopped after 100 ms \(time limit\)|ran out of memory)/);
    expect(await runJavascript('"ok"', {})).toBe('ok');
  });
});
