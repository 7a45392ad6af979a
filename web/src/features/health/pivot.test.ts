import { describe, expect, it } from 'vitest';
import type { CheckSummary } from '@contracts/health';
import { labelFilterDefs } from './filters';
import { aggregateCell, buildPivot, cellDescription, pivotColumns, pivotRows } from './pivot';
import { parsePivotParams, pivotByOptions, pivotOptionValue, pivotPatch } from './pivot-params';

let n = 0;
function makeCheck(over: Partial<CheckSummary> = {}): CheckSummary {
  n++;
  return {
    id: `id-${String(n).padStart(3, '0')}`, canary_id: 'c', canary_name: 'group', canary_namespace: 'default',
    agent_id: '00000000-0000-0000-0000-000000000000', name: `check-${n}`, type: 'http', namespace: 'default', labels: {},
    status: 'healthy', uptime: { passed: 10, failed: 0 }, latency: { p95: 100, p97: null, p99: null, rolling1h: 0 },
    created_at: null, updated_at: null, ...over,
  };
}

describe('pivot columns and rows', () => {
  const apiProd = makeCheck({ name: 'api', labels: { env: 'prod' } });
  const apiStaging = makeCheck({ name: 'api', type: 'tcp', labels: { env: 'staging' } });
  const dbDev = makeCheck({ name: 'db', type: 'postgres', labels: { env: 'dev' } });
  const bare = makeCheck({ name: 'web', labels: {} });
  const empty = makeCheck({ name: 'cache', labels: { env: '' } });

  it('lists the label values sorted, then "none" for checks without it', () => {
    expect(pivotColumns([bare, apiStaging, dbDev, apiProd], 'env')).toEqual(['dev', 'prod', 'staging', 'none']);
    // an empty value reads as missing (as Tab By does)
    expect(pivotColumns([empty, apiProd], 'env')).toEqual(['prod', 'none']);
    // no "none" column when every check has the label
    expect(pivotColumns([apiProd, apiStaging], 'env')).toEqual(['prod', 'staging']);
    expect(pivotColumns([], 'env')).toEqual([]);
    // numbers within values sort as numbers
    const v = (env: string) => makeCheck({ labels: { env } });
    expect(pivotColumns([v('v10'), v('v2'), v('V1')], 'env')).toEqual(['V1', 'v2', 'v10']);
  });

  it('makes one row per check name, sorted, with each check in its column', () => {
    const { columns, rows } = buildPivot([bare, apiStaging, dbDev, apiProd], 'env', 'checkStatuses');
    expect(columns).toEqual(['dev', 'prod', 'staging', 'none']);
    expect(rows.map((r) => r.name)).toEqual(['api', 'db', 'web']);
    expect(buildPivot([makeCheck({ name: 'c-10' }), makeCheck({ name: 'c-9' })], 'env', 'latency').rows.map((r) => r.name)).toEqual(['c-9', 'c-10']);
    const [api, db, web] = rows;
    expect(api.cells.map((c) => c?.check.id ?? null)).toEqual([null, apiProd.id, apiStaging.id, null]);
    expect(db.cells.map((c) => c?.check.id ?? null)).toEqual([dbDev.id, null, null, null]);
    expect(web.cells.map((c) => c?.check.id ?? null)).toEqual([null, null, null, bare.id]);
    // the row icon comes from its first check's type
    expect(db.type).toBe('postgres');
    expect(api.type).toBe('http');
  });

  it('drops nothing: every check lands in exactly one cell', () => {
    const many = Array.from({ length: 500 }, (_, i) => makeCheck({ name: `n${i % 37}`, labels: i % 5 ? { env: `e${i % 7}` } : {} }));
    const { rows } = buildPivot(many, 'env', 'uptime');
    expect(rows).toHaveLength(37);
    expect(rows.flatMap((r) => r.cells).reduce((sum, c) => sum + (c?.count ?? 0), 0)).toBe(500);
  });

  it('leaves out checks whose value is not among the given columns', () => {
    expect(pivotRows([apiProd, dbDev], 'env', ['prod'], 'checkStatuses').map((r) => r.name)).toEqual(['api']);
  });
});

describe('pivot cells with several checks', () => {
  const healthy = makeCheck({ name: 'api', canary_name: 'a', status: 'healthy', uptime: { passed: 9, failed: 1 }, latency: { p95: 250, rolling1h: 0 } });
  const unhealthy = makeCheck({ name: 'api', canary_name: 'b', status: 'unhealthy', uptime: { passed: 5, failed: 5 }, latency: { p95: 40, rolling1h: 0 } });
  const unknown = makeCheck({ name: 'api', canary_name: 'c', status: null, uptime: { passed: 0, failed: 0 }, latency: { p95: null, rolling1h: 0 } });
  const slow = makeCheck({ name: 'api', canary_name: 'd', status: 'healthy', uptime: { passed: 3, failed: 0 }, latency: { p95: null, p97: null, p99: 900, rolling1h: 0 } });
  const all = [healthy, unhealthy, unknown, slow];

  it('Status shows the worst status: unhealthy over unknown over healthy', () => {
    expect(aggregateCell(all, 'checkStatuses')).toEqual({ check: unhealthy, count: 4 });
    expect(aggregateCell([healthy, unknown, slow], 'checkStatuses').check).toBe(unknown);
    expect(aggregateCell([slow, healthy], 'checkStatuses').check).toBe(healthy); // a tie: the earlier canary
  });

  it('Uptime shows the lowest uptime; checks without runs never win over ones with runs', () => {
    expect(aggregateCell(all, 'uptime')).toEqual({ check: unhealthy, count: 4 });
    expect(aggregateCell([unknown, healthy, slow], 'uptime').check).toBe(healthy);
    // nothing ran: the cell still points at one check (the earlier canary)
    const other = makeCheck({ canary_name: 'z', uptime: { passed: 0, failed: 0 } });
    expect(aggregateCell([other, unknown], 'uptime').check).toBe(unknown);
  });

  it('Latency shows the highest latency (p95, else p97, else p99); checks without latency never win', () => {
    expect(aggregateCell(all, 'latency')).toEqual({ check: slow, count: 4 });
    expect(aggregateCell([unknown, unhealthy], 'latency').check).toBe(unhealthy);
  });

  it('the same checks give a different cell per type, in the built pivot too', () => {
    const byType = (t: 'checkStatuses' | 'uptime' | 'latency') => buildPivot(all, 'env', t).rows[0].cells[0]!.check;
    expect([byType('checkStatuses'), byType('uptime'), byType('latency')]).toEqual([unhealthy, unhealthy, slow]);
  });

  it('a single check is its own cell', () => {
    expect(aggregateCell([unknown], 'latency')).toEqual({ check: unknown, count: 1 });
  });

  it('describes a cell with its value and how many checks share it', () => {
    expect(cellDescription({ check: unhealthy, count: 2 }, 'checkStatuses', '')).toBe('unhealthy, 2 checks');
    expect(cellDescription({ check: unknown, count: 1 }, 'checkStatuses', '')).toBe('unknown');
    expect(cellDescription({ check: healthy, count: 1 }, 'uptime', '90.0%')).toBe('90.0% uptime');
    expect(cellDescription({ check: unknown, count: 3 }, 'uptime', '')).toBe('No runs, 3 checks');
    expect(cellDescription({ check: slow, count: 1 }, 'latency', '900ms')).toBe('900ms latency');
  });
});

describe('pivot parameters', () => {
  const defaults = { pivotBy: 'none', pivotLabel: '', cellType: 'checkStatuses' };

  it('reads a labels pivot with its cell type', () => {
    expect(parsePivotParams({ pivotBy: 'labels', pivotLabel: 'env', pivotCellType: 'uptime' })).toEqual({
      pivotBy: 'labels', pivotLabel: 'env', cellType: 'uptime',
    });
    expect(parsePivotParams({ pivotBy: 'labels', pivotLabel: 'env', pivotCellType: 'latency' }, ['env', 'team']).cellType).toBe('latency');
  });

  it('falls back to the defaults on unknown values', () => {
    expect(parsePivotParams({ pivotBy: 'none', pivotLabel: '', pivotCellType: 'checkStatuses' })).toEqual(defaults);
    expect(parsePivotParams({ pivotBy: 'bogus', pivotLabel: 'env', pivotCellType: 'checkStatuses' })).toEqual(defaults);
    // labels without a label is no pivot
    expect(parsePivotParams({ pivotBy: 'labels', pivotLabel: '  ', pivotCellType: 'checkStatuses' })).toEqual(defaults);
    // an unknown cell type reads as Status, the pivot itself stays
    expect(parsePivotParams({ pivotBy: 'labels', pivotLabel: 'env', pivotCellType: 'sparkline' })).toEqual({ ...defaults, pivotBy: 'labels', pivotLabel: 'env' });
    // a label no loaded check carries: back to the table (keeping a valid cell type)
    expect(parsePivotParams({ pivotBy: 'labels', pivotLabel: 'gone', pivotCellType: 'uptime' }, ['env'])).toEqual({ ...defaults, cellType: 'uptime' });
    expect(parsePivotParams({ pivotBy: 'labels', pivotLabel: 'env', pivotCellType: 'uptime' }, [])).toEqual({ ...defaults, cellType: 'uptime' });
  });

  it('offers None then every label key, and maps a choice to the URL', () => {
    const defs = labelFilterDefs([makeCheck({ labels: { team: 'a', env: 'prod' } })]);
    expect(pivotByOptions(defs)).toEqual([
      { value: 'none', label: 'None' },
      { value: 'label:env', label: 'Label: env' },
      { value: 'label:team', label: 'Label: team' },
    ]);
    expect(pivotPatch('label:env')).toEqual({ pivotBy: 'labels', pivotLabel: 'env' });
    expect(pivotPatch('none')).toEqual({ pivotBy: 'none', pivotLabel: '', pivotCellType: 'checkStatuses' });
    expect(pivotPatch('label:')).toEqual({ pivotBy: 'none', pivotLabel: '', pivotCellType: 'checkStatuses' });
    expect(pivotOptionValue(parsePivotParams({ pivotBy: 'labels', pivotLabel: 'env', pivotCellType: '' }))).toBe('label:env');
    expect(pivotOptionValue(parsePivotParams({ pivotBy: 'labels', pivotLabel: '', pivotCellType: '' }))).toBe('none');
  });
});
