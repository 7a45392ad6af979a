import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, seedCatalog } from './catalog-fixtures.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// The reference UI's catalog calls through /api/db, each URL exactly as flanksource-ui builds it
// (src/api/services/configs.ts, src/api/query-hooks/index.ts prepareConfigListQuery, TristateReactSelect's
// `<column>.filter=` form), checked as an outside user would: the status, and the columns and shapes the UI reads.
// Bad parameters are a 400, never a 500. (catalog-db.test.ts checks the views' semantics in depth.)

let t: TestContext;
let admin: Record<string, string>;

const get = (path: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/db/${path}`, headers: { ...admin, ...headers } });
const rows = async (path: string) => {
  const res = await get(path);
  expect(res.statusCode, `${path}: ${res.payload.slice(0, 300)}`).toBe(200);
  return res.json() as Record<string, unknown>[];
};
const keys = (row: Record<string, unknown> | undefined) => Object.keys(row ?? {}).sort();
const CONFIG = ['config_class', 'id', 'name', 'type'];

beforeAll(async () => {
  t = await createTestApp();
  const adaId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adaId);
  await seedCatalog(t.db, adaId);
});
afterAll(() => t.close());

describe('the reference UI reads', () => {
  it('configs by ids, by id with tags, search by type and name/external_id, the cost fields', async () => {
    expect((await rows(`configs?id=in.(${IDS.pod},${IDS.service})&select=id,name,config_class,type`)).map(keys)).toEqual([CONFIG, CONFIG]);
    expect(await rows(`configs?id=eq.${IDS.pod}&select=id,name,tags`)).toEqual([
      { id: IDS.pod, name: 'web-7d9f', tags: { cluster: 'prod', namespace: 'default' } },
    ]);
    // searchConfigs: external_id is an array in the reference; ilike on it must not fail the call
    const found = await rows(`configs?select=id,external_id,name,type,analysis,changes&type=ilike.Kubernetes::Pod&or=(name.ilike.*web*,external_id.ilike.*web*)`);
    expect(found.map((r) => r.id)).toContain(IDS.pod);
    expect(found.find((r) => r.id === IDS.pod)).toMatchObject({ changes: 2, analysis: { availability: 1 } });
    expect(keys((await rows(`configs?id=eq.${IDS.deployment}&select=cost_per_minute,cost_total_1d,cost_total_30d`))[0]))
      .toEqual(['cost_per_minute', 'cost_total_1d', 'cost_total_30d']);
  });

  it('the filter lists: config_tags and config_labels as {key, value}, config_types, config_statuses, change_types, analyzers', async () => {
    expect(await rows('config_tags')).toContainEqual({ key: 'namespace', value: 'default' });
    expect((await rows('config_labels')).every((r) => keys(r).join() === 'key,value')).toBe(true);
    expect(await rows('config_types')).toContainEqual({ type: 'Kubernetes::Pod' });
    expect(await rows('config_statuses')).toContainEqual({ status: 'Running' });
    expect(await rows('change_types?change_type=not.eq.')).toContainEqual({ change_type: 'diff' });
    expect(await rows('analysis_types')).toContainEqual({ analysis_type: 'security' });
    const analyzers = (await rows('config_analysis_analyzers?order=analyzer.asc')).map((r) => r.analyzer as string);
    expect(analyzers).toEqual([...analyzers].sort());
  });

  it('config_detail with select=* and config_names by id', async () => {
    const [detail] = await rows(`config_detail?id=eq.${IDS.pod}&select=*`);
    expect(detail).toMatchObject({ id: IDS.pod, name: 'web-7d9f', type: 'Kubernetes::Pod', scraper: { id: IDS.scraper, name: 'cluster scraper' } });
    expect(keys(detail.summary as Record<string, unknown>)).toEqual(['analysis', 'changes', 'checks', 'playbook_runs', 'relationships']);
    expect(detail).toHaveProperty('last_scraped_time');
    expect(await rows(`config_names?id=eq.${IDS.pod}`)).toMatchObject([{ id: IDS.pod, name: 'web-7d9f', type: 'Kubernetes::Pod' }]);
  });

  it('the changes list: config_changes_items with the tri-state filters, a time window and the !inner config_names embed', async () => {
    const path = 'config_changes_items?order=created_at.desc&limit=50&offset=0'
      + '&select=id,change_type,summary,source,created_at,config_id,config:config_names!inner(id,name,type)'
      + '&change_type.filter=!Pulled&config_type.filter=Kubernetes::Pod'
      + '&and=(created_at.gte.2000-01-01T00:00:00Z,created_at.lte.2100-01-01T00:00:00Z)';
    const res = await get(path, { prefer: 'count=exact' });
    expect(res.statusCode, res.payload).toBe(200);
    const list = res.json() as { change_type: string; config: { type: string } }[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((c) => c.change_type !== 'Pulled' && c.config.type === 'Kubernetes::Pod')).toBe(true);
    expect(res.headers['content-range']).toMatch(/^0-\d+\/\d+$/);
  });

  it('insights: the list with its filters and sort, the distinct statuses and sources, the one-call filter options', async () => {
    const list = await rows('config_analysis_items?select=id,analysis_type,analyzer,summary,severity,status,source,first_observed,last_observed,config_name,config:configs(id,name,config_class,type)'
      + '&limit=50&offset=0&status.filter=open&config_type.filter=Kubernetes::Deployment&order=config_name.desc');
    expect(list.length).toBe(2);
    expect(list.every((r) => r.config_name === 'web' && keys(r.config as Record<string, unknown>).join() === CONFIG.join())).toBe(true);
    expect(new Set((await rows('config_analysis_items?select=status&status=not.is.null&order=status.asc')).map((r) => r.status))).toEqual(new Set(['open', 'resolved']));
    const options = (await get(`rpc/config_analysis_filter_options?p_config_id=${IDS.deployment}`)).json();
    expect(keys(options)).toEqual(['analyzers', 'catalogs', 'config_types', 'sources', 'types']);
    expect(options.catalogs).toEqual([{ id: IDS.deployment, name: 'web', type: 'Kubernetes::Deployment', config_class: 'Deployment' }]);
  });

  it('relationships: related_configs_recursive as getAConfigRelationships sends it, parents by location, linked checks', async () => {
    const related = await rows(`rpc/related_configs_recursive?config_id=${IDS.deployment}&include_deleted_configs=false&max_depth=10`
      + '&type.filter=Kubernetes::Pod&health.filter=healthy&type_filter=outgoing&outgoing_relation=both');
    expect(related.map((r) => r.id)).toEqual([IDS.pod]);
    expect(related[0]).toMatchObject({ name: 'web-7d9f', type: 'Kubernetes::Pod', health: 'healthy', status: 'Running', changes: 2 });
    expect(await rows(`rpc/get_parents_by_location?config_id=${IDS.pod}`)).toEqual([
      { id: IDS.cluster, name: 'prod', type: 'Kubernetes::Cluster' },
      { id: IDS.namespace, name: 'default', type: 'Kubernetes::Namespace' },
    ]);
    expect(await rows(`check_summary_for_config?config_id=eq.${IDS.pod}`)).toEqual([]);
    const [scraper] = await rows(`config_scrapers_with_status?id=eq.${IDS.scraper}`);
    expect(scraper).toMatchObject({ id: IDS.scraper, name: 'cluster scraper' });
    expect(scraper).toHaveProperty('job_status');
  });
});

describe('bad parameters are a 400, never a 500', () => {
  const BAD = [
    'rpc/related_configs_recursive?config_id=nope',
    `rpc/related_configs_recursive?config_id=${IDS.pod}&max_depth=abc`,
    `rpc/related_configs_recursive?config_id=${IDS.pod}&max_depth=-5`,
    `rpc/related_configs_recursive?config_id=${IDS.pod}&max_depth=100000000000`,
    `rpc/related_configs_recursive?config_id=${IDS.pod}&type_filter=sideways`,
    `rpc/related_configs_recursive?config_id=${IDS.pod}&incoming_relation=weird`,
    `rpc/related_configs_recursive?config_id=${IDS.pod}&include_deleted_configs=maybe`,
    'rpc/get_parents_by_location?config_id=bad',
    'rpc/config_analysis_filter_options?p_config_id=bad',
    'config_detail?id=eq.bad',
    'configs?order=nope.asc',
    'configs?limit=-1',
    'configs?select=nope',
    'configs?or=(name.ilike.*(*)',
    'config_changes_items?and=(created_at.gte.nope,created_at.lte.nope)',
    'config_analysis_items?order=config_name.sideways',
    'check_summary_for_config?config_id=eq.bad',
  ];
  for (const path of BAD) {
    it(path, async () => {
      const res = await get(path);
      expect(res.statusCode, res.payload).toBe(400);
    });
  }

  it('the RPC checks name the parameter', async () => {
    expect((await get(`rpc/related_configs_recursive?config_id=${IDS.pod}&type_filter=sideways`)).json().message).toContain('type_filter');
    expect((await get(`rpc/related_configs_recursive?config_id=${IDS.pod}&max_depth=-5`)).json().message).toContain('max_depth');
  });
});

describe('console scrapers through /api/db/config_scrapers', () => {
  it('an unsupported type is a 400 naming its path and stores nothing; viewers cannot write; every role reads', async () => {
    const post = (headers: Record<string, string>, spec: unknown) =>
      t.app.inject({ method: 'POST', url: '/api/db/config_scrapers', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'h9-trivy', spec }) });
    const bad = await post(admin, { trivy: [{ kubernetes: {} }] });
    expect(bad.statusCode, bad.payload).toBe(400);
    expect(bad.json().message).toContain('spec.trivy: the trivy scraper is not supported; supported: kubernetes, file, http, sql');
    expect((await t.db.query(`SELECT 1 FROM config_scrapers WHERE name = 'h9-trivy'`)).rowCount).toBe(0);
    const viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
    expect((await post(viewer, { file: [{ type: 'File', paths: ['x.json'] }] })).statusCode).toBe(403);
    const read = await t.app.inject({ method: 'GET', url: `/api/db/config_scrapers_with_status?id=eq.${IDS.scraper}`, headers: viewer });
    expect(read.statusCode).toBe(200);
  });
});
