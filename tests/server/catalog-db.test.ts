import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, seedCatalog } from './catalog-fixtures.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// The reference UI's catalog calls through /api/db (flanksource-ui src/api/services/configs.ts and
// query-hooks/index.ts prepareConfigListQuery), sent as it sends them, over the views and RPCs of 0051_catalog_views.sql.

let t: TestContext;
let admin: Record<string, string>;
let editor: Record<string, string>;
let viewer: Record<string, string>;
let adaId: string;

const get = (path: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/db/${path}`, headers: { ...admin, ...headers } });

beforeAll(async () => {
  t = await createTestApp();
  adaId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adaId);
  editor = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
  await seedCatalog(t.db, adaId);
});
afterAll(() => t.close());

describe('the catalog list (configs)', () => {
  it('merges the two select parameters the reference UI sends and embeds the agent', async () => {
    const q = new URLSearchParams({
      select: 'id,type,config_class,status,health,labels,name,tags,created_at,updated_at,deleted_at,cost_per_minute,cost_total_1d,cost_total_30d,changes,analysis',
    });
    q.append('select', 'agent:agents(id,name)');
    q.append('type', 'eq.Kubernetes::Deployment');
    q.append('order', 'type,name.asc');
    q.append('deleted_at', 'is.null');
    q.append('limit', '50');
    q.append('offset', '0');
    const res = await get(`configs?${q}`, { prefer: 'count=exact' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.headers['content-range']).toBe('0-0/1');
    const [row] = res.json();
    expect(row).toMatchObject({
      id: IDS.deployment, name: 'web', health: 'unhealthy', cost_total_30d: 432, changes: 2,
      analysis: { security: 1, reliability: 1 }, agent: { id: '00000000-0000-0000-0000-000000000000', name: 'local' },
    });
  });

  it('searches name, type, description and namespace, and hides deleted items', async () => {
    const search = (s: string) => get(`configs?select=id,name&or=(name.ilike.*${s}*,type.ilike.*${s}*,description.ilike.*${s}*,namespace.ilike.*${s}*)&deleted_at=is.null&order=name`);
    expect((await search('storefront')).json()).toEqual([{ id: IDS.deployment, name: 'web' }]);
    const byNamespace = (await search('default')).json().map((r: { name: string }) => r.name);
    expect(byNamespace).toEqual(['default', 'web', 'web-7d9f', 'web-svc']);
    expect(byNamespace).not.toContain('web-old');
  });

  it('filters labels with the list\'s tri-state or/and form and health with health.filter', async () => {
    const res = await get(`configs?select=name&or=(and(labels->>app.eq.web,labels->>team.eq.payments))&deleted_at=is.null`);
    expect(res.json()).toEqual([{ name: 'web' }]);
    const health = await get('configs?select=name&health.filter=healthy,!unknown&type.filter=Kubernetes::Pod&order=name');
    expect(health.json()).toEqual([{ name: 'web-7d9f' }]);
  });

  it('counts a new change at once (no refresh: configs.changes is current)', async () => {
    const before = (await get(`configs?select=changes&id=eq.${IDS.service}`)).json()[0].changes;
    await t.db.query(`INSERT INTO config_changes (config_id, change_type, severity) VALUES ($1, 'diff', 'low')`, [IDS.service]);
    const after = (await get(`configs?select=changes&id=eq.${IDS.service}`)).json()[0].changes;
    expect(after).toBe(before + 1);
    const s7 = (await get(`config_item_summary_7d?config_id=eq.${IDS.service}`)).json()[0];
    expect(s7.config_changes_count).toBe(after);
  });
});

describe('the item', () => {
  it('config_detail has the summary badges, the scraper and the last scrape', async () => {
    const res = await get(`config_detail?id=eq.${IDS.deployment}&select=*`);
    expect(res.statusCode, res.payload).toBe(200);
    const [row] = res.json();
    expect(row.summary).toEqual({ relationships: 3, analysis: 2, changes: 2, playbook_runs: 0, checks: 1 });
    expect(row.scraper).toEqual({ id: IDS.scraper, name: 'cluster scraper' });
    expect(row.agent_name).toBe('local');
    expect(row.last_scraped_time).toEqual(expect.any(String));
    expect(row.config).toEqual({ kind: 'Kubernetes::Deployment' });
    const file = (await get(`config_detail?id=eq.${IDS.file}&select=scraper,summary`)).json()[0];
    expect(file.scraper).toBeNull();
  });

  it('config_names and the lookups of the sidebar and filters', async () => {
    expect((await get(`config_names?id=eq.${IDS.pod}`)).json()).toEqual([
      expect.objectContaining({ id: IDS.pod, name: 'web-7d9f', type: 'Kubernetes::Pod' }),
    ]);
    const types = (await get('config_types')).json().map((r: { type: string }) => r.type);
    expect(types).toEqual(['File::Config', 'Kubernetes::Cluster', 'Kubernetes::Deployment', 'Kubernetes::Namespace', 'Kubernetes::Pod', 'Kubernetes::Service']);
    expect((await get('config_statuses')).json().map((r: { status: string }) => r.status)).toContain('Degraded');
    expect((await get('config_classes?order=config_class')).json()[0]).toEqual({ config_class: 'Cluster' });
    expect((await get('config_tags_labels_keys?order=key')).json()).toEqual([
      { key: 'label:app' }, { key: 'label:team' }, { key: 'tag:cluster' }, { key: 'tag:namespace' },
    ]);
    expect((await get('config_labels?key=eq.team')).json()).toEqual([{ key: 'team', value: 'payments' }, { key: 'team', value: 'platform' }]);
    expect((await get('config_tags?key=eq.namespace')).json()).toEqual([{ key: 'namespace', value: 'default' }]);
  });

  it('check_summary_for_config lists the linked checks', async () => {
    const res = await get(`check_summary_for_config?config_id=eq.${IDS.deployment}`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ config_id: IDS.deployment, name: 'web endpoint', canary_name: 'web-http' })]);
  });

  it('config_relationships with both FK-hinted embeds (the relationships panel)', async () => {
    const fields = 'id, type, name, config_class, deleted_at';
    const res = await get(`config_relationships?or=(related_id.eq.${IDS.pod},config_id.eq.${IDS.pod})&configs.order=name&select=*,configs:configs!config_relationships_config_id_fkey(${fields}),related:configs!config_relationships_related_id_fkey(${fields})&deleted_at=is.null`);
    expect(res.statusCode, res.payload).toBe(200);
    const names = res.json().map((r: { configs: { name: string }; related: { name: string } }) => `${r.configs.name}→${r.related.name}`).sort();
    expect(names).toEqual(['web-svc→web-7d9f', 'web→web-7d9f']);
  });
});

describe('related_configs_recursive', () => {
  const rel = (qs: string) => get(`rpc/related_configs_recursive?config_id=${IDS.deployment}&${qs}`);

  it('walks outgoing links, adds the ancestors, and hides deleted items unless asked', async () => {
    const res = await rel('include_deleted_configs=false&max_depth=10&type_filter=outgoing');
    expect(res.statusCode, res.payload).toBe(200);
    const rows = res.json() as { id: string; name: string; related_ids: string[] | null }[];
    expect(rows.map((r) => r.name).sort()).toEqual(['default', 'prod', 'web', 'web-7d9f']);
    expect(rows.find((r) => r.id === IDS.deployment)!.related_ids).toEqual(expect.arrayContaining([IDS.pod]));
    const all = await rel('include_deleted_configs=true&max_depth=10&type_filter=outgoing');
    expect(all.json().map((r: { name: string }) => r.name)).toContain('web-old');
  });

  it('takes type, status and health filters on its rows, as the reference UI sends them', async () => {
    const pods = await rel('include_deleted_configs=true&max_depth=10&type_filter=all&type.filter=Kubernetes::Pod');
    expect(pods.json().map((r: { name: string }) => r.name).sort()).toEqual(['web-7d9f', 'web-old']);
    const running = await rel('max_depth=10&type_filter=all&status.filter=Running,!Terminated&health.filter=healthy');
    expect(running.json().map((r: { name: string }) => r.name).sort()).toEqual(['prod', 'web-7d9f']);
    const notPods = await rel('max_depth=10&type_filter=all&type=not.in.(Kubernetes::Pod)&select=name&order=name');
    expect(notPods.json()).toEqual([{ name: 'default' }, { name: 'prod' }, { name: 'web' }]);
  });

  it('incoming hard-only links stop at hard edges; a soft link shows with relation both', async () => {
    const pod = (qs: string) => get(`rpc/related_configs_recursive?config_id=${IDS.pod}&${qs}`);
    const hard = (await pod('type_filter=incoming&incoming_relation=hard&max_depth=1')).json().map((r: { name: string }) => r.name);
    expect(hard).not.toContain('web-svc');
    const both = (await pod('type_filter=incoming&incoming_relation=both&max_depth=1')).json().map((r: { name: string }) => r.name);
    expect(both).toContain('web-svc');
  });

  it('refuses bad arguments with 400 naming them', async () => {
    const res = await rel('type_filter=sideways');
    expect(res.statusCode, res.payload).toBe(400);
    expect(res.json().message).toMatch(/type_filter/);
    expect((await rel('max_depth=500')).statusCode).toBe(400);
    const badId = await get('rpc/related_configs_recursive?config_id=not-a-uuid');
    expect(badId.statusCode).toBe(400);
  });
});

describe('get_parents_by_location and the insights filter options', () => {
  it('lists the location parents outermost first', async () => {
    const res = await get(`rpc/get_parents_by_location?config_id=${IDS.pod}`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([
      { id: IDS.cluster, name: 'prod', type: 'Kubernetes::Cluster' },
      { id: IDS.namespace, name: 'default', type: 'Kubernetes::Namespace' },
    ]);
  });

  it('config_analysis_filter_options, for all and for one item', async () => {
    const all = await get('rpc/config_analysis_filter_options?');
    expect(all.statusCode, all.payload).toBe(200);
    expect(all.json()).toMatchObject({
      types: ['availability', 'reliability', 'security'], analyzers: ['crashloop', 'image-pull', 'latest-tag', 'no-limits'],
      sources: ['kubernetes'], config_types: ['Kubernetes::Deployment', 'Kubernetes::Pod'],
    });
    const one = await get(`rpc/config_analysis_filter_options?p_config_id=${IDS.pod}`);
    expect(one.json().catalogs).toEqual([{ id: IDS.pod, name: 'web-7d9f', type: 'Kubernetes::Pod', config_class: 'Pod' }]);
  });
});

describe('insights and changes lists', () => {
  it('config_analysis_items pages with an embedded configs and a count', async () => {
    const res = await get('config_analysis_items?select=id,analysis_type,analyzer,summary,severity,status,source,first_observed,last_observed,config_name,config:configs(id,name,config_class,type)&status=eq.open&order=severity.asc&limit=50&offset=0', { prefer: 'count=exact' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.headers['content-range']).toBe('0-2/3');
    expect(res.json()[0].config).toEqual(expect.objectContaining({ id: expect.any(String), type: expect.stringMatching(/^Kubernetes::/) }));
    expect((await get('config_analysis_analyzers?order=analyzer.asc')).json()).toEqual([
      { analyzer: 'crashloop' }, { analyzer: 'latest-tag' }, { analyzer: 'no-limits' },
    ]);
    expect((await get('analysis_types')).json().map((r: { analysis_type: string }) => r.analysis_type)).toEqual(['availability', 'reliability', 'security']);
  });

  it('config_changes_items with the !inner config_names embed, filters and a count', async () => {
    const res = await get(`config_changes_items?order=created_at.desc&limit=50&offset=0&select=id,change_type,summary,source,created_at,config_id,config:config_names!inner(id,name,type)&config_type=eq.Kubernetes::Pod&change_type=eq.BackOff`, { prefer: 'count=exact' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ change_type: 'BackOff', config: { id: IDS.pod, name: 'web-7d9f', type: 'Kubernetes::Pod' } })]);
    expect(res.headers['content-range']).toBe('0-0/1');
    const types = (await get('change_types')).json().map((r: { change_type: string }) => r.change_type);
    expect(types).toEqual(expect.arrayContaining(['BackOff', 'CREATE', 'Pulled', 'diff']));
  });

  it('catalog_changes and config_changes by id with the reference embeds', async () => {
    const [change] = (await get(`catalog_changes?config_id=eq.${IDS.pod}&change_type=eq.Pulled`)).json();
    expect(change).toMatchObject({ name: 'web-7d9f', type: 'Kubernetes::Pod', count: 4, tags: { cluster: 'prod', namespace: 'default' } });
    const res = await get(`config_changes?id=eq.${change.id}&select=id,config_id,change_type,created_at,external_created_by,source,diff,details,patches,created_by,config:configs(id,name,type,config_class),artifacts:artifacts(*)::jsonb`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()[0]).toMatchObject({ config: { id: IDS.pod, name: 'web-7d9f' }, artifacts: [] });
  });

  it('config_summary counts per type', async () => {
    const res = await get('config_summary?type=eq.Kubernetes::Pod');
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()[0]).toMatchObject({ type: 'Kubernetes::Pod', total_configs: 1, analysis: { availability: 1 }, severity: { critical: 1 } });
  });
});

describe('manual links', () => {
  it('editors link a component to a config and delete the link, as the reference UI does', async () => {
    const component = '0000000c-0000-4000-8000-0000000000c1';
    // a real component now that the link has its component FK (0060_topology.sql)
    await t.db.query(`INSERT INTO components (id, name, external_id) VALUES ($1, 'checkout', 'checkout')`, [component]);
    const post = await t.app.inject({
      method: 'POST', url: '/api/db/config_component_relationships', headers: { ...editor, 'content-type': 'application/json' },
      payload: { component_id: component, config_id: IDS.deployment, selector_id: 'manual' },
    });
    expect(post.statusCode, post.payload).toBe(201);
    const del = await t.app.inject({
      method: 'DELETE', url: `/api/db/config_component_relationships?component_id=eq.${component}&config_id=eq.${IDS.deployment}&selector_id=eq.manual`, headers: editor,
    });
    expect(del.statusCode, del.payload).toBe(204);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM config_component_relationships');
    expect(rows[0].n).toBe(0);
  });

  it('a manual config link can be unlinked; a scraped one cannot; viewers cannot write', async () => {
    const body = { config_id: IDS.file, related_id: IDS.deployment, relation: 'soft', selector_id: 'manual' };
    const asViewer = await t.app.inject({ method: 'POST', url: '/api/db/config_relationships', headers: { ...viewer, 'content-type': 'application/json' }, payload: body });
    expect(asViewer.statusCode).toBe(403);
    const made = await t.app.inject({ method: 'POST', url: '/api/db/config_relationships', headers: { ...editor, 'content-type': 'application/json' }, payload: body });
    expect(made.statusCode, made.payload).toBe(201);
    const scraped = await t.app.inject({
      method: 'DELETE', url: `/api/db/config_relationships?config_id=eq.${IDS.service}&related_id=eq.${IDS.pod}`, headers: editor,
    });
    expect(scraped.statusCode).toBe(403);
    expect(scraped.json().message).toMatch(/made by hand/);
    const notManual = await t.app.inject({
      method: 'POST', url: '/api/db/config_relationships', headers: { ...editor, 'content-type': 'application/json' },
      payload: { ...body, selector_id: null, relation: 'x' },
    });
    expect(notManual.statusCode).toBe(403);
    const unlink = await t.app.inject({
      method: 'DELETE', url: `/api/db/config_relationships?config_id=eq.${IDS.file}&related_id=eq.${IDS.deployment}&selector_id=eq.manual`, headers: editor,
    });
    expect(unlink.statusCode, unlink.payload).toBe(204);
    const left = await t.db.query('SELECT count(*)::int AS n FROM config_relationships WHERE config_id = $1 AND related_id = $2', [IDS.service, IDS.pod]);
    expect(left.rows[0].n).toBe(1);
  });
});
