import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CheckMetrics, metricNumber, type MetricsCheck, type MetricsOutcome } from './check-metrics.js';
import { SpecError, validateCanarySpec } from './spec.js';
import { evalCel } from '../../lib/cel.js';
import { CanarySpec } from '../kubernetes/kinds.js';
import { sample } from '../../../tests/support/prom-text.js';

// A result shaped as the http check returns it (checks/http.ts `data`).
const httpResult = (over: Partial<{ code: number; latency: number; version: string }> = {}): MetricsOutcome => ({
  duration: 42,
  data: {
    code: over.code ?? 200, headers: { 'content-type': 'application/json' }, content: '{"ok":true}',
    json: { latency: over.latency ?? 0.25, items: [1, 2, 3], version: over.version ?? '1.2.3' }, elapsed: 42, sslAge: null,
    url: 'http://127.0.0.1:8080/health',
  },
});

let seq = 0;
const check = (metrics: unknown, over: Partial<MetricsCheck> = {}): MetricsCheck =>
  ({ id: `check-${++seq}`, name: 'api', type: 'http', spec: { name: 'api', url: 'http://127.0.0.1:8080/health', metrics }, ...over });

function setup() {
  const registry = new Registry();
  const warnings: unknown[] = [];
  const log = { warn: (obj: object) => warnings.push(obj), debug: () => {} };
  return { registry, cm: new CheckMetrics(registry, log), warnings, text: () => registry.metrics() };
}

describe('CheckMetrics: values', () => {
  it('sets a gauge from CEL over the result, with literal and expression labels', async () => {
    const { cm, text } = setup();
    const c = check([{
      name: 'api_latency_ms', type: 'gauge', value: 'duration',
      labels: [{ name: 'target', value: 'local' }, { name: 'version', valueExpr: 'json.version' }, { name: 'check', valueExpr: 'check.name' }],
    }]);
    cm.observe(c, httpResult());
    expect(sample(await text(), 'api_latency_ms', { target: 'local', version: '1.2.3', check: 'api' })).toBe(42);
    cm.observe(c, { ...httpResult(), duration: 7 });
    expect(sample(await text(), 'api_latency_ms', { target: 'local', version: '1.2.3', check: 'api' })).toBe(7);
    expect(cm.problems()).toEqual([]);
  });

  it('increases a counter by the value (a bool counts 1 or 0) and skips a negative one', async () => {
    const { cm, text } = setup();
    const c = check([
      { name: 'api_ok_total', type: 'counter', value: 'code == 200' },
      { name: 'api_delta_total', type: 'counter', value: 'json.latency - 1.0' },
    ]);
    cm.observe(c, httpResult());
    cm.observe(c, httpResult());
    cm.observe(c, httpResult({ code: 500 }));
    const t = await text();
    expect(sample(t, 'api_ok_total')).toBe(2);
    expect(sample(t, 'api_delta_total')).toBeUndefined();
    expect(cm.problems(c.id)).toEqual([{ checkId: c.id, metric: 'api_delta_total', message: expect.stringContaining('negative') }]);
  });

  it('observes a histogram with the default buckets', async () => {
    const { cm, text } = setup();
    const c = check([{ name: 'api_latency_seconds', type: 'histogram', value: 'json.latency', labels: [{ name: 'target', value: 'local' }] }]);
    cm.observe(c, httpResult({ latency: 0.25 }));
    cm.observe(c, httpResult({ latency: 2 }));
    const t = await text();
    expect(sample(t, 'api_latency_seconds_count', { target: 'local' })).toBe(2);
    expect(sample(t, 'api_latency_seconds_sum', { target: 'local' })).toBe(2.25);
    expect(sample(t, 'api_latency_seconds_bucket', { target: 'local', le: '0.5' })).toBe(1);
    expect(sample(t, 'api_latency_seconds_bucket', { target: 'local', le: '+Inf' })).toBe(2);
  });

  it('takes int, uint and double values; refuses strings, lists, null', () => {
    expect(metricNumber(evalCel('json.items.size()', httpResult().data))).toBe(3);
    expect(metricNumber(evalCel('uint(5)', {}))).toBe(5);
    expect(metricNumber(evalCel('1.5', {}))).toBe(1.5);
    expect(metricNumber(evalCel('false', {}))).toBe(0);
    for (const expr of ['"3"', '[1]', 'null', '1.0 / 0.0']) expect(typeof metricNumber(evalCel(expr, {})), expr).toBe('string');
  });

  it('skips a value that is not a number or fails to evaluate, remembers why, and logs it once', async () => {
    const { cm, text, warnings } = setup();
    const c = check([
      { name: 'api_content', type: 'gauge', value: 'content' },
      { name: 'api_missing', type: 'gauge', value: 'json.nope + 1.0' },
      { name: 'api_bad_label', type: 'gauge', value: '1', labels: [{ name: 'x', valueExpr: 'json.nope' }] },
      { name: 'api_code', type: 'gauge', value: 'code' },
    ]);
    for (let i = 0; i < 3; i++) cm.observe(c, httpResult());
    const t = await text();
    expect(sample(t, 'api_code')).toBe(200);
    for (const n of ['api_content', 'api_missing', 'api_bad_label']) expect(sample(t, n), n).toBeUndefined();
    const problems = cm.problems(c.id);
    expect(problems.map((p) => p.metric).sort()).toEqual(['api_bad_label', 'api_content', 'api_missing']);
    expect(problems.find((p) => p.metric === 'api_content')?.message).toContain('a string');
    expect(warnings).toHaveLength(3);
  });

  it('never throws into the caller, whatever the spec holds', () => {
    const { cm } = setup();
    expect(() => cm.observe(check('not a list'), httpResult())).not.toThrow();
    expect(() => cm.observe(check([{ name: 'x', type: 'gauge', value: 'duration' }]), { duration: 1, data: { self: null } })).not.toThrow();
  });
});

describe('CheckMetrics: conflicts', () => {
  it('keeps the first declaration of a name; a later one with another type or labels is skipped with a problem', async () => {
    const { cm, text } = setup();
    const a = check([{ name: 'shared_latency', type: 'gauge', value: 'duration', labels: [{ name: 'target', value: 'a' }] }]);
    const b = check([{ name: 'shared_latency', type: 'counter', value: 'duration', labels: [{ name: 'target', value: 'b' }] }]);
    const c = check([{ name: 'shared_latency', type: 'gauge', value: 'duration', labels: [{ name: 'zone', value: 'c' }] }]);
    const d = check([{ name: 'shared_latency', type: 'gauge', value: 'duration', labels: [{ name: 'target', value: 'd' }] }]);
    for (const x of [a, b, c, d]) cm.observe(x, httpResult());
    const t = await text();
    expect(sample(t, 'shared_latency', { target: 'a' })).toBe(42);
    expect(sample(t, 'shared_latency', { target: 'd' })).toBe(42); // same type and label names: shares the family
    expect(sample(t, 'shared_latency', { target: 'b' })).toBeUndefined();
    expect(sample(t, 'shared_latency', { zone: 'c' })).toBeUndefined();
    expect(cm.problems(b.id)[0].message).toMatch(/conflicts with shared_latency .*gauge \{target\}.*counter \{target\}/);
    expect(cm.problems(c.id)[0].message).toMatch(/gauge \{zone\}/);

    // once every check declaring the first shape is gone, the next declaration takes the name
    cm.forget(a.id);
    cm.forget(d.id);
    cm.observe(b, httpResult());
    expect(sample(await text(), 'shared_latency', { target: 'b' })).toBe(42);
    expect(cm.problems(b.id)).toEqual([]);
  });

  it('refuses a name the registry already exports, and a histogram whose series would collide', async () => {
    const { registry, cm, text } = setup();
    new Gauge({ name: 'console_own', help: 'x', registers: [registry] }).set(9);
    const a = check([{ name: 'console_own', type: 'gauge', value: 'duration' }]);
    const h = check([{ name: 'req', type: 'histogram', value: 'duration' }]);
    const g = check([{ name: 'req_count', type: 'gauge', value: 'duration' }]);
    for (const x of [a, h, g]) cm.observe(x, httpResult());
    const t = await text();
    expect(sample(t, 'console_own')).toBe(9);
    expect(cm.problems(a.id)[0].message).toContain('already exported');
    expect(sample(t, 'req_count')).toBe(1); // the histogram's count, not the gauge
    expect(cm.problems(g.id)[0].message).toContain('req is already exported');
  });
});

describe('CheckMetrics: lifecycle', () => {
  it('removes a deleted check\'s series and unregisters a name no check declares any more', async () => {
    const { cm, text } = setup();
    const a = check([{ name: 'fleet_up', type: 'gauge', value: 'code == 200', labels: [{ name: 'target', value: 'a' }] }]);
    const b = check([{ name: 'fleet_up', type: 'gauge', value: 'code == 200', labels: [{ name: 'target', value: 'b' }] }]);
    cm.observe(a, httpResult());
    cm.observe(b, httpResult());
    cm.forget(a.id);
    let t = await text();
    expect(sample(t, 'fleet_up', { target: 'a' })).toBeUndefined();
    expect(sample(t, 'fleet_up', { target: 'b' })).toBe(1);
    cm.forget(b.id);
    t = await text();
    expect(t).not.toContain('fleet_up');
    expect(cm.stats()).toEqual({ checks: 0, families: 0, series: 0 });
  });

  it('keeps a series two checks write with identical labels until both are gone', async () => {
    const { cm, text } = setup();
    const m = [{ name: 'same_series', type: 'gauge', value: 'duration', labels: [{ name: 'target', value: 'x' }] }];
    const a = check(m);
    const b = check(m);
    cm.observe(a, httpResult());
    cm.observe(b, { ...httpResult(), duration: 5 });
    cm.forget(a.id);
    expect(sample(await text(), 'same_series', { target: 'x' })).toBe(5);
    cm.forget(b.id);
    expect(await text()).not.toContain('same_series');
  });

  it('starts over when the check\'s metrics change: old names and series go at once', async () => {
    const { cm, text } = setup();
    const a = check([{ name: 'old_name', type: 'gauge', value: 'duration', labels: [{ name: 'target', value: 'local' }] }]);
    cm.observe(a, httpResult());
    cm.observe({ ...a, spec: { ...a.spec, metrics: [{ name: 'new_name', type: 'gauge', value: 'code' }] } }, httpResult());
    const t = await text();
    expect(t).not.toContain('old_name');
    expect(sample(t, 'new_name')).toBe(200);
    // metrics removed from the spec altogether
    cm.observe({ ...a, spec: { name: 'api', url: 'http://x' } }, httpResult());
    expect(await text()).not.toContain('new_name');
    expect(cm.stats().checks).toBe(0);
  });

  it('holds one series per check and metric: new label values replace the old series', async () => {
    const { cm, text } = setup();
    const a = check([{ name: 'by_version', type: 'gauge', value: '1', labels: [{ name: 'version', valueExpr: 'json.version' }] }]);
    cm.observe(a, httpResult({ version: '1.0' }));
    cm.observe(a, httpResult({ version: '2.0' }));
    const t = await text();
    expect(sample(t, 'by_version', { version: '1.0' })).toBeUndefined();
    expect(sample(t, 'by_version', { version: '2.0' })).toBe(1);
    expect(cm.stats()).toEqual({ checks: 1, families: 1, series: 1 });
  });

  it('a name declared several times in one check keeps one series per declaration (exchange_rate{to=...})', async () => {
    const { cm, text } = setup();
    const rate = (to: string) => ({ name: 'exchange_rate', type: 'gauge', value: `json.rates.${to}`, labels: [{ name: 'from', value: 'USD' }, { name: 'to', value: to }] });
    const a = check([rate('GBP'), rate('EUR'), { name: 'exchange_rate_api', type: 'histogram', value: 'elapsed.getMilliseconds()' }]);
    const result = (gbp: number, eur: number): MetricsOutcome => ({ duration: 120, data: { code: 200, elapsed: 120, json: { rates: { GBP: gbp, EUR: eur } } } });
    cm.observe(a, result(0.79, 0.92));
    cm.observe(a, result(0.78, 0.91));
    let t = await text();
    expect(sample(t, 'exchange_rate', { from: 'USD', to: 'GBP' })).toBe(0.78);
    expect(sample(t, 'exchange_rate', { from: 'USD', to: 'EUR' })).toBe(0.91);
    expect(sample(t, 'exchange_rate_api_sum')).toBe(240); // elapsed is a duration: getMilliseconds() of 120 ms
    expect(cm.problems()).toEqual([]);
    cm.forget(a.id);
    t = await text();
    expect(t).not.toContain('exchange_rate');
  });

  it('sweep forgets checks that are gone or whose metrics changed, and keeps the rest', async () => {
    const { cm, text } = setup();
    const metric = (name: string) => [{ name, type: 'gauge', value: 'duration' }];
    const kept = check(metric('kept_m'));
    const deleted = check(metric('deleted_m'));
    const changed = check(metric('changed_m'));
    for (const x of [kept, deleted, changed]) cm.observe(x, httpResult());
    const asked: string[][] = [];
    const n = await cm.sweep(async (ids) => {
      asked.push(ids);
      return new Map([
        [kept.id, { ...kept.spec, description: 'edited, metrics unchanged' }],
        [changed.id, { ...changed.spec, metrics: metric('changed_m2') }],
      ]);
    });
    expect(n).toBe(2);
    expect(asked[0].sort()).toEqual([kept.id, deleted.id, changed.id].sort());
    const t = await text();
    expect(sample(t, 'kept_m')).toBe(42);
    expect(t).not.toContain('deleted_m');
    expect(t).not.toContain('changed_m');
  });

  it('stays bounded with 10,000 checks whose label values change every run', async () => {
    const { cm, registry } = setup();
    const checks = Array.from({ length: 10_000 }, (_, i) => check([
      { name: 'fleet_latency_ms', type: 'gauge', value: 'duration', labels: [{ name: 'check', valueExpr: 'check.name' }, { name: 'run', valueExpr: 'string(run)' }] },
    ], { name: `c${i}` }));
    for (let run = 0; run < 3; run++) for (const c of checks) cm.observe(c, { duration: run, data: { run } });
    expect(cm.stats()).toEqual({ checks: 10_000, families: 1, series: 10_000 });
    const text = await registry.metrics();
    expect(text.split('\n').filter((l) => l.startsWith('fleet_latency_ms{'))).toHaveLength(10_000);
    console.log(`10,000 checks x 3 runs: ${text.length} bytes of /metrics text`);
    for (const c of checks) cm.forget(c.id);
    expect(cm.stats()).toEqual({ checks: 0, families: 0, series: 0 });
    expect((await registry.metrics()).trim()).toBe('');
  });
});

describe('metrics[] validation at save', () => {
  const problems = (metrics: unknown) => {
    try {
      validateCanarySpec({ interval: 60, http: [{ name: 'web', url: 'http://127.0.0.1:1/', metrics }] });
      return [];
    } catch (err) {
      if (!(err instanceof SpecError)) throw err;
      return err.problems;
    }
  };
  const at = (path: string) => expect.arrayContaining([expect.objectContaining({ path: `spec.http.0.metrics.${path}` })]);

  it('accepts the reference shape', () => {
    expect(problems([
      { name: 'e2e_latency_ms', type: 'gauge', value: 'duration', labels: [{ name: 'target', value: 'local' }, { name: 'code', valueExpr: 'string(code)' }] },
      { name: 'ns:up_total', type: 'counter', value: 'code == 200' },
      { name: 'latency_seconds', type: 'histogram', value: 'duration / 1000.0' },
    ])).toEqual([]);
  });

  it('refuses bad names, types, labels and CEL, each by path', () => {
    expect(problems([{ name: '9lives', type: 'gauge', value: 'duration' }])).toEqual(at('0.name'));
    expect(problems([{ name: 'a-b', type: 'gauge', value: 'duration' }])).toEqual(at('0.name'));
    for (const own of ['http_requests_total', 'db_pool_connections', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes']) {
      expect(problems([{ name: own, type: 'gauge', value: 'duration' }]), own).toEqual(at('0.name'));
    }
    expect(problems([{ name: 'm', type: 'summary', value: 'duration' }])).toEqual(at('0.type'));
    expect(problems([{ name: 'm', value: 'duration' }])).toEqual([{ path: 'spec.http.0.metrics.0.type', message: expect.stringContaining('required') }]);
    expect(problems([{ name: 'm', type: 'gauge', value: 'duration +' }])).toEqual([{ path: 'spec.http.0.metrics.0.value', message: expect.stringContaining('invalid CEL') }]);
    expect(problems([{ name: 'm', type: 'gauge', value: '  ' }])).toEqual(at('0.value'));
    expect(problems([{ name: 'm', type: 'gauge', value: '1', labels: [{ name: 'x', valueExpr: 'code ==' }] }])).toEqual(at('0.labels.0.valueExpr'));
    expect(problems([{ name: 'm', type: 'gauge', value: '1', labels: [{ name: '__name__', value: 'x' }] }])).toEqual(at('0.labels.0.name'));
    expect(problems([{ name: 'm', type: 'gauge', value: '1', labels: [{ name: 'a.b', value: 'x' }] }])).toEqual(at('0.labels.0.name'));
    expect(problems([{ name: 'm', type: 'gauge', value: '1', labels: [{ name: 'x' }] }])).toEqual(at('0.labels.0'));
    expect(problems([{ name: 'm', type: 'gauge', value: '1', labels: [{ name: 'x', value: 'a', valueExpr: 'b' }] }])).toEqual(at('0.labels.0'));
    expect(problems([{ name: 'm', type: 'gauge', value: '1', labels: [{ name: 'x', value: 'a' }, { name: 'x', value: 'b' }] }])).toEqual(at('0.labels.1.name'));
    expect(problems([{ name: 'h', type: 'histogram', value: '1', labels: [{ name: 'le', value: 'a' }] }])).toEqual(at('0.labels.0.name'));
    expect(problems([{ name: 'm', type: 'gauge', value: '1' }, { name: 'm', type: 'counter', value: '1' }])).toEqual(at('1.name'));
    expect(problems([{ name: 'm', type: 'gauge', value: '1' }, { name: 'm', type: 'gauge', value: '1', labels: [{ name: 'x', value: 'a' }] }])).toEqual(at('1.name'));
    // the same family again, with other label values: allowed
    expect(problems([
      { name: 'm', type: 'gauge', value: '1', labels: [{ name: 'x', value: 'a' }, { name: 'y', value: 'b' }] },
      { name: 'm', type: 'gauge', value: '2', labels: [{ name: 'y', value: 'c' }, { name: 'x', value: 'd' }] },
    ])).toEqual([]);
    expect(problems({ name: 'm' })).toEqual([expect.objectContaining({ path: 'spec.http.0.metrics' })]);
  });

  it('reports the same problems, by path, for a Canary custom resource', () => {
    const cr = CanarySpec.safeParse({
      interval: 60, tcp: [{ name: 'p', endpoint: '127.0.0.1:1', metrics: [{ name: 'nodejs_x', type: 'gauge', value: 'duration' }] }],
    });
    expect(cr.success).toBe(false);
    // the typed CRD shape and the health validation both see it: one reason, one path
    expect(new Set(cr.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`))).toEqual(
      new Set([`tcp.0.metrics.0.name: names starting with http_, db_pool_, process_, nodejs_ belong to the console's own metrics`]),
    );
  });
});
