import net, { type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Limiter } from '../../server/modules/health/limiter.js';
import { executeCheck } from '../../server/modules/health/runner.js';
import { nextRun, parseGoDuration, parseSchedule, spreadOffset } from '../../server/modules/health/schedule.js';
import { SpecError, validateCanarySpec } from '../../server/modules/health/spec.js';

const exec = (spec: Record<string, unknown>) =>
  executeCheck({ id: 'c', canaryId: 'k', type: 'exec', name: 'x', spec: { name: 'x', script: 'echo ok', ...spec } });

function problems(spec: unknown): string[] {
  try {
    validateCanarySpec(spec);
  } catch (err) {
    if (err instanceof SpecError) return err.problems.map((p) => `${p.path}: ${p.message}`);
    throw err;
  }
  return [];
}

describe('schedules', () => {
  it('parses @every with Go durations, descriptors, cron and interval', () => {
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('1h2m3s500ms')).toBe(3_723_500);
    expect(parseSchedule('@every 1m30s')).toMatchObject({ kind: 'every', everyMs: 90_000 });
    expect(parseSchedule('@hourly')).toMatchObject({ kind: 'cron', expr: '0 * * * *', periodMs: 3_600_000 });
    expect(parseSchedule('*/5 * * * *')).toMatchObject({ kind: 'cron', periodMs: 300_000 });
    expect(parseSchedule(undefined, 45)).toMatchObject({ kind: 'every', everyMs: 45_000 });
    expect(parseSchedule(undefined)).toMatchObject({ kind: 'never' });
    expect(parseSchedule('@never')).toMatchObject({ kind: 'never' });
  });

  it('refuses bad schedules with the reason', () => {
    expect(() => parseSchedule('@every 5 minutes')).toThrow(/invalid duration "5 minutes"/);
    expect(() => parseSchedule('@every 100ms')).toThrow(/at least 1s/);
    expect(() => parseSchedule('61 * * * *')).toThrow(/invalid schedule "61 \* \* \* \*"/);
    expect(() => parseSchedule('* * *')).toThrow(/5 fields/);
    expect(() => parseSchedule('@fortnightly')).toThrow(/unknown descriptor/);
  });

  it('runs @every canaries at a stable phase, spread over the interval', () => {
    const s = parseSchedule('@every 10s');
    const t = Date.UTC(2026, 0, 1, 12, 0, 0);
    const a = nextRun(s, t, 'canary-a')!;
    expect(a).toBeGreaterThan(t);
    expect(a - t).toBeLessThanOrEqual(10_000);
    expect(nextRun(s, a, 'canary-a')).toBe(a + 10_000);
    expect(nextRun(s, a - 1, 'canary-a')).toBe(a);
    // 200 canaries land in every tenth of the interval
    const buckets = new Set(Array.from({ length: 200 }, (_, i) => Math.floor(spreadOffset(`canary-${i}`, 10_000) / 1_000)));
    expect(buckets.size).toBe(10);
  });

  it('runs cron canaries at their time plus a small stable spread', () => {
    const s = parseSchedule('0 * * * *');
    const t = Date.UTC(2026, 0, 1, 12, 10, 0);
    const n = nextRun(s, t, 'canary-a')!;
    expect(n - Date.UTC(2026, 0, 1, 13, 0, 0)).toBeGreaterThanOrEqual(0);
    expect(n - Date.UTC(2026, 0, 1, 13, 0, 0)).toBeLessThan(30_000);
    expect(nextRun(s, n, 'canary-a')).toBe(n + 3_600_000);
  });
});

describe('canary spec validation', () => {
  const ok = { schedule: '@every 1m', http: [{ name: 'home', url: 'http://127.0.0.1:1/' }] };

  it('accepts a valid spec and lists its checks with severity from the canary', () => {
    const v = validateCanarySpec({ ...ok, severity: 'High', tcp: [{ name: 'port', endpoint: '127.0.0.1:80', severity: 'low' }] });
    expect(v.checks.map((c) => [c.type, c.name, c.severity])).toEqual([['http', 'home', 'high'], ['tcp', 'port', 'low']]);
  });

  it('refuses bad schedules, unknown check types, missing names and malformed CEL, each with its path', () => {
    expect(problems({ ...ok, schedule: '@every soon' })).toEqual(['spec.schedule: invalid duration "soon" (expected e.g. 30s, 1m30s, 2h)']);
    expect(problems({ ...ok, kubernetes: [{ name: 'k' }] })).toEqual(['spec.kubernetes: check type "kubernetes" is not supported by this console']);
    expect(problems({ ...ok, htp: [] })).toEqual(['spec.htp: unknown field or check type "htp"']);
    // a nameless check is named after its description or endpoint (as the reference); with neither it is refused
    expect(problems({ exec: [{ script: 'true' }] })).toEqual(['spec.exec.0.name: name is required (or a description or endpoint to name the check after)']);
    expect(problems({ http: [{ name: '  ', url: 'http://x' }] })).toEqual(['spec.http.0.name: name must not be empty']);
    expect(problems({ ...ok, http: [{ name: 'a', url: 'http://x', test: { expr: 'code ==' } }] })[0])
      .toMatch(/^spec\.http\.0\.test\.expr: invalid CEL: /);
    expect(problems({ ...ok, http: [{ name: 'a', url: 'http://x', test: { jsonPath: '$.ok' } }] }))
      .toEqual(['spec.http.0.test.jsonPath: test.jsonPath is not supported; use test.expr (CEL)']);
    expect(problems({ ...ok, http: [{ name: 'a' }, { name: 'a', url: 'http://x' }] })).toContain('spec.http.0.url: url (or endpoint) is required');
    expect(problems({ ...ok, http: [{ name: 'a', url: 'http://x' }, { name: 'a', url: 'http://y' }] }))
      .toEqual(['spec.http.1.name: duplicate http check name "a"']);
    expect(problems({ schedule: '@every 1m' })).toEqual(['spec: a canary needs at least one check']);
    expect(problems({ ...ok, severity: 'apocalyptic' })[0]).toMatch(/^spec\.severity: /);
  });
});

describe('CEL test and display', () => {
  it('fails a check whose test is false, and sets the message from display', async () => {
    expect(await exec({ test: { expr: "stdout == 'nope'" } })).toMatchObject({ pass: false, invalid: false, error: "test failed: stdout == 'nope'" });
    expect(await exec({ display: { expr: "'said ' + stdout.trim() + ' in ' + string(duration) + 'ms'" } }))
      .toMatchObject({ pass: true, message: expect.stringMatching(/^said ok in \d+ms$/) });
  });

  it('fails when the test is not a boolean', async () => {
    expect(await exec({ test: { expr: 'stdout' } })).toMatchObject({ pass: false, error: 'test expression did not return a boolean value' });
  });

  it('marks malformed or failing CEL as invalid with the reason, and the runner carries on', async () => {
    const broken = await exec({ test: { expr: 'stdout.contains(' } });
    expect(broken).toMatchObject({ pass: false, invalid: true, error: expect.stringMatching(/^invalid CEL|test.expr: invalid CEL/) });
    const unknown = await exec({ test: { expr: 'nosuchvar == 1' } });
    expect(unknown).toMatchObject({ pass: false, invalid: true, error: expect.stringContaining('test expression:') });
    const display = await exec({ display: { expr: 'nosuchvar' } });
    expect(display).toMatchObject({ pass: false, invalid: true, error: expect.stringContaining('display expression:') });
    expect(await exec({})).toMatchObject({ pass: true });
  });

  it('binds elapsed as a duration, as the reference does (elapsed.getMilliseconds(), duration comparisons)', async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const out = await executeCheck({
        id: 'c', canaryId: 'k', type: 'tcp', name: 'x',
        spec: {
          name: 'x', endpoint,
          test: { expr: 'elapsed < duration("30s") && elapsed.getMilliseconds() >= 0 && elapsed >= duration("0s")' },
          display: { expr: 'string(elapsed)' },
        },
      });
      expect(out).toMatchObject({ pass: true, message: expect.stringMatching(/^\d+(\.\d+)?s$/) });
      // stored data keeps elapsed in ms
      expect(typeof out.data.elapsed).toBe('number');
      // a duration on its own prints as Go's time.Duration does (the reference prints results with %v): 1.2ms, 1.5s
      const shown = await executeCheck({ id: 'c', canaryId: 'k', type: 'tcp', name: 'x', spec: { name: 'x', endpoint, display: { expr: 'elapsed' } } });
      expect(shown.message).toMatch(/^\d+(\.\d+)?(ns|µs|ms|s)$/);
    } finally {
      server.close();
    }
  });

  it('display.template and test.template render {{.field}} references (the reference\'s Go templates)', async () => {
    expect(await exec({ script: 'printf ok', display: { template: 'said {{.stdout}} with {{ .exitCode }}' } })).toMatchObject({ pass: true, message: 'said ok with 0' });
    // the output is read as Go's strconv.ParseBool reads it: "0" is false, "maybe" is no boolean
    expect(await exec({ test: { template: '{{.exitCode}}' } })).toMatchObject({ pass: false, error: 'test failed: {{.exitCode}}' });
    expect(await exec({ script: 'printf maybe', test: { template: '{{.stdout}}' } })).toMatchObject({ pass: false, error: 'test expression did not return a boolean value' });
    expect(await exec({ script: 'echo true', test: { template: '{{.stdout}}' } })).toMatchObject({ pass: true });
    expect(await exec({ script: 'echo false', test: { template: '{{.stdout}}' } })).toMatchObject({ pass: false, error: 'test failed: {{.stdout}}' });
    // expr wins over template when both are there
    expect(await exec({ display: { expr: "'cel'", template: 'tpl' } })).toMatchObject({ message: 'cel' });
    // control structures and the reference's functions run; a function the console lacks is refused at save, by
    // path and name, and invalid at run time
    expect(await exec({ script: 'printf ok', display: { template: '{{if .stdout}}{{ .stdout | strings.ToUpper }}{{end}}' } })).toMatchObject({ pass: true, message: 'OK' });
    expect(problems({ interval: 60, exec: [{ name: 'x', script: 'echo', display: { template: '{{ .stdout | upper }}' } }] }))
      .toEqual(['spec.exec.0.display.template: template: 1:14: function "upper" not defined']);
    expect(await exec({ display: { template: '{{ .stdout | upper }}' } })).toMatchObject({ pass: false, invalid: true, error: expect.stringContaining('function "upper" not defined') });
  });

  it('refuses an unknown check type at run time as invalid', async () => {
    expect(await executeCheck({ id: 'c', canaryId: 'k', type: 'nosuch', name: 'x', spec: { name: 'x' } }))
      .toMatchObject({ pass: false, invalid: true, error: 'unknown check type "nosuch"' });
  });
});

describe('limiter', () => {
  it('never runs more than max at once in the main lane, and moves slow tasks aside', async () => {
    const l = new Limiter(2, 2, 50);
    let running = 0;
    let peak = 0;
    const task = (ms: number) => l.run(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return ms;
    });
    // two slow tasks take both slots; after 50 ms they move to the slow lane and the quick ones get through
    const t0 = Date.now();
    const slow = [task(400), task(400)];
    const quick = await Promise.all([task(10), task(10), task(10)]);
    expect(quick).toEqual([10, 10, 10]);
    expect(Date.now() - t0).toBeLessThan(300);
    await Promise.all(slow);
    expect(peak).toBeLessThanOrEqual(4);
  });
});
