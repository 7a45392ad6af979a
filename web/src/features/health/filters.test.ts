import { describe, expect, it } from 'vitest';
import type { CheckSummary } from '@contracts/health';
import {
  agentName,
  DURATION_ERROR,
  inTab,
  filterChecks,
  groupHealth,
  labelFilterDefs,
  latencyOf,
  parseDurationFilter,
  passingCount,
  tabsOf,
  toggleTriState,
} from './filters';
import { toYaml } from './yaml';

let n = 0;
function makeCheck(over: Partial<CheckSummary> = {}): CheckSummary {
  n++;
  return {
    id: `id-${n}`, canary_id: 'c', canary_name: 'group', canary_namespace: 'default', agent_id: '00000000-0000-0000-0000-000000000000',
    name: `check-${n}`, type: 'http', namespace: 'default', labels: {}, status: 'healthy',
    uptime: { passed: 10, failed: 0 }, latency: { p95: null, p97: 120, p99: 300, rolling1h: 0 },
    created_at: null, updated_at: null, ...over,
  };
}

describe('health filters', () => {
  const ok = makeCheck({ name: 'api', labels: { critical: 'true', team: 'a' } });
  const bad = makeCheck({ name: 'db', status: 'unhealthy', uptime: { passed: 1, failed: 3 }, labels: { critical: 'false', team: 'b' }, namespace: null });
  const flaky = makeCheck({ name: 'cache', uptime: { passed: 5, failed: 1 }, description: 'Redis endpoint', labels: { team: 'c' } });
  const all = [ok, bad, flaky];

  it('hides passing checks and searches name or description', () => {
    expect(filterChecks(all, { hidePassing: true, labels: {}, query: '' })).toEqual([bad, flaky]);
    expect(filterChecks(all, { hidePassing: false, labels: {}, query: 'REDIS' })).toEqual([flaky]);
  });

  it('tells boolean labels from multi-value ones and filters with include and exclude', () => {
    expect(labelFilterDefs(all).map((d) => [d.key, d.kind])).toEqual([['critical', 'boolean'], ['team', 'multi']]);
    expect(filterChecks(all, { hidePassing: false, labels: { 'critical=true': -1 }, query: '' })).toEqual([bad, flaky]);
    expect(filterChecks(all, { hidePassing: false, labels: { 'team=a': 1, 'team=c': 1 }, query: '' })).toEqual([ok, flaky]);
  });

  it('returns a tri-state toggle to off when its active state is chosen again', () => {
    expect(toggleTriState({}, 'x=true', 1)).toEqual({ 'x=true': 1 });
    expect(toggleTriState({ 'x=true': 1 }, 'x=true', 1)).toEqual({});
    expect(toggleTriState({ 'x=true': 1 }, 'x=true', -1)).toEqual({ 'x=true': -1 });
  });

  it('tabs start with All, then sorted names, "none" for no namespace; groups count fully passing', () => {
    expect(tabsOf(all, 'namespace')).toEqual([{ name: 'All', count: 3 }, { name: 'default', count: 2 }, { name: 'none', count: 1 }]);
    expect(passingCount(all)).toEqual({ passing: 1, total: 3 });
  });

  it('Tab By Agent names the agent (the id until its name is known), "local" for this console', () => {
    const pushed = makeCheck({ agent_id: 'a1' });
    const names = new Map([['a1', 'eu-west-prod']]);
    expect(tabsOf([ok, pushed], 'agent', names)).toEqual([{ name: 'All', count: 2 }, { name: 'eu-west-prod', count: 1 }, { name: 'local', count: 1 }]);
    expect(inTab([ok, pushed], 'agent', 'eu-west-prod', names)).toEqual([pushed]);
    expect(agentName('a1')).toBe('a1');
  });

  it('falls back from p95 to p97 to p99', () => {
    expect(latencyOf(ok)).toBe(120);
    expect(latencyOf(makeCheck({ latency: { p99: 9, rolling1h: 0 } }))).toBe(9);
  });

  it('accepts durations in ms or s only', () => {
    expect(parseDurationFilter('250ms')).toEqual({ ms: 250 });
    expect(parseDurationFilter('1.5s')).toEqual({ ms: 1500 });
    expect(parseDurationFilter('2m')).toEqual({ error: DURATION_ERROR });
  });

  it('prints a spec as YAML', () => {
    expect(toYaml({ http: [{ name: 'a', url: 'http://x:1/healthz', thresholdMillis: 500 }], on: true })).toBe(
      'http:\n  - name: a\n    url: "http://x:1/healthz"\n    thresholdMillis: 500\n"on": true',
    );
  });
});

describe('group health', () => {
  it('is unknown while no check of the group has run, mixed or unhealthy once some have', () => {
    const never = makeCheck({ status: null, uptime: { passed: 0, failed: 0 } });
    const ok = makeCheck();
    const bad = makeCheck({ status: 'unhealthy' });
    expect(groupHealth([never])).toBe('unknown');
    expect(groupHealth([ok])).toBe('healthy');
    expect(groupHealth([bad, never])).toBe('unhealthy');
    expect(groupHealth([ok, never])).toBe('mixed');
  });
});
