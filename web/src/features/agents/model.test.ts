import { describe, expect, it } from 'vitest';
import {
  AGENT_ONLINE_MS,
  AgentCreateInput,
  agentListQuery,
  agentStatus,
  CREATE_DEFAULTS,
  LOCAL_AGENT_ID,
  snippetOptions,
  statusBands,
  toProperties,
  toRows,
} from './model';

describe('agents model', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  const ago = (ms: number) => new Date(now - ms).toISOString();

  it('is Online while the last ping is within 61 s, Offline at 61 s and when never seen', () => {
    expect(agentStatus(ago(60_999), now)).toBe('Online');
    expect(agentStatus(ago(AGENT_ONLINE_MS), now)).toBe('Offline');
    expect(agentStatus(null, now)).toBe('Offline');
    // the same row turns Offline as time passes, without a refetch
    expect(agentStatus(ago(30_000), now + 31_000)).toBe('Offline');
  });

  it('sends the reference list query: created_at.desc first, then the user order, paging by offset', () => {
    expect(agentListQuery({ sortBy: 'name', desc: false, pageIndex: 2, pageSize: 50 })).toEqual({
      select: '*,created_by(id,name,avatar,email)',
      id: `neq.${LOCAL_AGENT_ID}`,
      order: ['created_at.desc', 'name.asc'],
      limit: 50,
      offset: 100,
    });
    // an unknown sort column never reaches the server
    expect(agentListQuery({ sortBy: 'x;drop', desc: true, pageIndex: 0, pageSize: 100 }).order).toEqual(['created_at.desc', 'created_at.desc']);
  });

  it('validates the create form: name required, no control characters, keys set and unique, topology when telemetry is on', () => {
    const parse = (over: Partial<typeof CREATE_DEFAULTS>) => AgentCreateInput.safeParse({ ...CREATE_DEFAULTS, ...over });
    const messages = (over: Partial<typeof CREATE_DEFAULTS>) => {
      const r = parse(over);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    expect(messages({ name: '  ' })).toEqual(['name: This field is required']);
    expect(messages({ name: 'a\u0007b' })).toEqual(['name: Name must not contain control characters']);
    expect(messages({ name: 'x'.repeat(256) })).toEqual(['name: Name must be 255 characters or fewer']);
    expect(messages({ name: 'a', properties: [{ key: 'env', value: '1' }, { key: 'env', value: '2' }, { key: '', value: '3' }] })).toEqual([
      'properties.1.key: Key env is already used',
      'properties.2.key: Enter a key or remove the row',
    ]);
    expect(messages({ name: 'a', telemetryEnabled: true })).toEqual(['topologyName: Enter a topology name to push telemetry']);
    expect(parse({ name: "it's $(prod)" }).success).toBe(true);
  });

  it('maps properties between form rows and the API map', () => {
    expect(toProperties([{ key: ' env ', value: 'prod' }, { key: '', value: 'x' }])).toEqual({ env: 'prod' });
    expect(toRows({ env: 'prod', n: 3 })).toEqual([{ key: 'env', value: 'prod' }, { key: 'n', value: '3' }]);
  });

  it('builds the snippet options from the form, the token and the install info', () => {
    const values = AgentCreateInput.parse({ ...CREATE_DEFAULTS, name: 'eu', telemetryEnabled: true, topologyName: 'eu-topo' });
    expect(snippetOptions(values, 'tok', { upstreamUrl: 'https://c', chartRepoUrl: 'https://c/api/agent/charts', chartName: 'ops-console', chartVersion: '1.0.0' })).toEqual({
      name: 'eu',
      token: 'tok',
      upstreamUrl: 'https://c',
      chartRepoUrl: 'https://c/api/agent/charts',
      chartName: 'ops-console',
      chartVersion: '1.0.0',
      kubernetes: { enabled: true, scrapeInterval: '30m' },
      telemetry: { enabled: true, topologyName: 'eu-topo' },
    });
  });

  it('folds pings into Online/Offline bands: each ping covers 61 s, gaps are Offline', () => {
    const from = 0;
    const to = 600_000;
    expect(statusBands([], from, to)).toEqual([{ start: 0, end: to, status: 'Offline' }]);
    expect(statusBands([100_000, 130_000, 400_000], from, to)).toEqual([
      { start: 0, end: 100_000, status: 'Offline' },
      { start: 100_000, end: 191_000, status: 'Online' },
      { start: 191_000, end: 400_000, status: 'Offline' },
      { start: 400_000, end: 461_000, status: 'Online' },
      { start: 461_000, end: to, status: 'Offline' },
    ]);
    // a ping just before the window covers its start
    expect(statusBands([-1_000], from, to)[0]).toEqual({ start: 0, end: 60_000, status: 'Online' });
  });
});
