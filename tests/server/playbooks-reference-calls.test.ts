import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// The reference UI's playbook reads through /api/db, each URL as flanksource-ui builds it
// (src/api/services/playbooks.ts: getAllPlaybookNames, getPlaybookRunWithActions, getPlaybookRunActionById,
// getPlaybookRuns with Prefer count=exact; AVATAR_INFO = id,name,email,avatar), checked for the status and the
// columns and shapes the UI reads. Runs are arranged as finished rows, so the engine leaves them alone.

let t: TestContext;
let admin: Record<string, string>;
let viewer: Record<string, string>;
const AVATAR_INFO = 'id,name,email,avatar';
const ids: Record<string, string> = {};

const get = (path: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/api/db/${path}`, headers: { ...admin, ...headers } });
const rows = async (path: string, headers: Record<string, string> = {}) => {
  const res = await get(path, headers);
  expect(res.statusCode, `${path}: ${res.payload.slice(0, 400)}`).toBe(200);
  return res.json() as Record<string, any>[];
};
const one = async (sql: string, values: unknown[] = []) => (await t.db.query(sql, values)).rows[0];

beforeAll(async () => {
  t = await createTestApp();
  ids.admin = (await makePerson(t.db, { roles: ['admin'], first: 'Ada' })).id;
  admin = await bearerHeaders(t.db, ids.admin);
  viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
  const spec = {
    title: 'Restart', category: 'Ops', icon: 'k8s', runsOn: ['edge-1'],
    parameters: [{ name: 'reason', type: 'text' }, { name: 'token', type: 'secret' }],
    actions: [{ name: 'say', exec: { script: 'echo hi' } }],
  };
  ids.playbook = (await one(`INSERT INTO playbooks (name, title, category, spec, source, created_by)
    VALUES ('restart', 'Restart', 'Ops', $1, 'UI', $2) RETURNING id`, [spec, ids.admin])).id;
  ids.other = (await one(`INSERT INTO playbooks (name, title, spec, source) VALUES ('audit', 'Audit', $1, 'UI') RETURNING id`,
    [{ actions: [{ name: 'a', exec: { script: 'true' } }] }])).id;
  await one(`INSERT INTO playbooks (name, title, spec, source, deleted_at) VALUES ('gone', 'Gone', $1, 'UI', now()) RETURNING id`,
    [{ actions: [{ name: 'a', exec: { script: 'true' } }] }]);
  ids.agent = (await one(`INSERT INTO agents (name) VALUES ('edge-1') RETURNING id`)).id;
  const canary = (await one(`INSERT INTO canaries (name, spec, source) VALUES ('web', '{}', 'UI') RETURNING id`)).id;
  ids.check = (await one(`INSERT INTO checks (canary_id, type, name, status, icon) VALUES ($1, 'http', 'web endpoint', 'unhealthy', 'http') RETURNING id`, [canary])).id;
  ids.config = (await one(`INSERT INTO config_items (config_class, type, name) VALUES ('Pod', 'Kubernetes::Pod', 'web-1') RETURNING id`)).id;
  ids.component = (await one(`INSERT INTO components (name, external_id, icon) VALUES ('checkout', 'checkout', 'shop') RETURNING id`)).id;
  ids.team = (await one(`INSERT INTO teams (name, created_by) VALUES ('sre', $1) RETURNING id`, [ids.admin])).id;
  const run = (extra: string, values: unknown[]) => one(
    `INSERT INTO playbook_runs (playbook_id, spec, status, created_by, parameters, start_time, end_time, created_at ${extra ? `, ${extra.split('=')[0]}` : ''})
     VALUES ($1, $2, $3, $4, $5, now() - interval '2 minutes', now() - interval '1 minute', now() - interval '3 minutes'
             ${extra ? ', $6' : ''}) RETURNING id`, values);
  ids.runCheck = (await run('check_id=', [ids.playbook, spec, 'failed', ids.admin, { reason: 'disk', token: 'enc:v1:AAAA' }, ids.check])).id;
  ids.runConfig = (await run('config_id=', [ids.playbook, spec, 'completed', ids.admin, { reason: 'x' }, ids.config])).id;
  ids.runComponent = (await run('component_id=', [ids.playbook, spec, 'completed', ids.admin, {}, ids.component])).id;
  ids.child = (await run('parent_id=', [ids.playbook, spec, 'completed', ids.admin, {}, ids.runCheck])).id;
  ids.old = (await one(`INSERT INTO playbook_runs (playbook_id, spec, status, created_at) VALUES ($1, $2, 'completed', now() - interval '30 days') RETURNING id`,
    [ids.other, spec])).id;
  const action = (runId: string, name: string, status: string, at: string) => one(
    `INSERT INTO playbook_run_actions (name, status, playbook_run_id, start_time, end_time, scheduled_time, result, error)
     VALUES ($1, $2, $3, now() - $4::interval, now() - $4::interval + interval '1 second', now() - $4::interval, $5, $6) RETURNING id`,
    [name, status, runId, at, { stdout: `${name} out` }, status === 'failed' ? 'exit 1' : null]);
  ids.a1 = (await action(ids.runCheck, 'say', 'completed', '150 seconds')).id;
  ids.a2 = (await action(ids.runCheck, 'fix', 'failed', '140 seconds')).id;
  ids.a3 = (await action(ids.child, 'fix', 'completed', '60 seconds')).id;
  await one(`INSERT INTO artifacts (playbook_run_action_id, path, filename, content_type, size, checksum, content)
    VALUES ($1, 'runs/out.txt', 'out.txt', 'text/plain', 3, 'abc', 'abc') RETURNING id`, [ids.a2]);
  await one(`INSERT INTO playbook_approvals (run_id, person_id) VALUES ($1, $2) RETURNING id`, [ids.runCheck, ids.admin]);
  await one(`INSERT INTO playbook_approvals (run_id, team_id) VALUES ($1, $2) RETURNING id`, [ids.runCheck, ids.team]);
});
afterAll(() => t.close());

describe('the reference UI reads', () => {
  it('getAllPlaybookNames: live playbooks by title with the spec fields', async () => {
    const names = await rows('playbook_names?select=id,name,title,icon,category&order=title.asc');
    expect(names).toEqual([
      { id: ids.other, name: 'audit', title: 'Audit', icon: null, category: null },
      { id: ids.playbook, name: 'restart', title: 'Restart', icon: 'k8s', category: 'Ops' },
    ]);
  });

  it('getPlaybookRunWithActions: the run with its creator, playbook, resource and approvals, then rpc/get_playbook_run_actions', async () => {
    const select = [
      '*', `created_by(${AVATAR_INFO})`, 'playbooks(id,name,title,spec)', 'component:components(id,name,icon)',
      'config:config_items(id,name,type,config_class)', 'check:checks(id,name,icon)',
      `playbook_approvals(*, person_id(${AVATAR_INFO}), team_id(*))`,
    ].join(',');
    const [run] = await rows(`playbook_runs?id=eq.${ids.runCheck}&select=${encodeURIComponent(select)}`);
    expect(run).toMatchObject({
      id: ids.runCheck, status: 'failed', playbook_id: ids.playbook,
      created_by: { id: ids.admin, name: expect.stringContaining('Ada') },
      playbooks: { id: ids.playbook, name: 'restart', title: 'Restart' },
      check: { id: ids.check, name: 'web endpoint', icon: 'http' }, config: null, component: null,
      // the secret parameter reads *** (it is stored sealed)
      parameters: { reason: 'disk', token: '***' },
    });
    expect(run.playbook_approvals).toHaveLength(2);
    expect(run.playbook_approvals).toEqual(expect.arrayContaining([
      expect.objectContaining({ person_id: expect.objectContaining({ id: ids.admin }), team_id: null }),
      expect.objectContaining({ team_id: expect.objectContaining({ id: ids.team, name: 'sre' }) }),
    ]));

    const actions = await rows(`rpc/get_playbook_run_actions?run_id=${ids.runCheck}`);
    expect(actions.map((a) => [a.id, a.name, a.status, a.playbook_run_id])).toEqual([
      [ids.a1, 'say', 'completed', ids.runCheck],
      [ids.a2, 'fix', 'failed', ids.runCheck],
      [ids.a3, 'fix', 'completed', ids.child], // the child run's action comes along
    ]);
    expect(actions[0].agent).toMatchObject({ id: '00000000-0000-0000-0000-000000000000' });
    expect(actions[0].artifacts).toEqual([]);
    expect(actions[1].artifacts).toEqual([expect.objectContaining({ filename: 'out.txt', path: 'runs/out.txt', size: 3 })]);
    expect(actions[1].artifacts[0]).not.toHaveProperty('content');
    expect(actions[1].error).toBe('exit 1');
  });

  it('getPlaybookRunActionById: the action with its artifacts and the run spec', async () => {
    const [action] = await rows(`playbook_run_actions?id=eq.${ids.a2}&select=*,artifacts:artifacts(*)::jsonb,playbook_run:playbook_runs(spec)`);
    expect(action).toMatchObject({ id: ids.a2, name: 'fix', status: 'failed', result: { stdout: 'fix out' }, playbook_run: { spec: { title: 'Restart' } } });
    expect(action.artifacts).toEqual([expect.objectContaining({ filename: 'out.txt' })]);
  });

  it('getPlaybookRuns: the runs list with count=exact, its filters, window and paging', async () => {
    const list = (extra: (p: URLSearchParams) => void) => {
      const p = new URLSearchParams();
      extra(p);
      p.append('parent_id', 'is.null');
      p.append('limit', '2');
      p.append('offset', '0');
      p.append('order', 'created_at.desc');
      p.append('select', ['*', 'created_by(id,name,avatar)', 'playbooks(id,name,title,spec,icon)', 'component:components(id,name,icon)',
        'check:checks(id,name,icon)', 'config:config_items(id,name,type,config_class)'].join(','));
      return get(`playbook_runs?${p.toString()}`, { prefer: 'count=exact' });
    };
    const all = await list(() => undefined);
    expect(all.statusCode, all.payload).toBe(206); // a page of more, as PostgREST answers it
    expect(all.headers['content-range']).toBe('0-1/4'); // top-level runs only: the child is left out
    const page = all.json() as Record<string, any>[];
    expect(page).toHaveLength(2);
    expect(page[0]).toHaveProperty('playbooks.title');
    expect(Object.keys(page[0].created_by ?? {}).sort()).toEqual(['avatar', 'id', 'name']);

    const starts = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const ends = new Date().toISOString();
    const windowed = await list((p) => {
      p.append('status', 'eq.failed');
      p.append('or', `(and(start_time.gte.${starts},start_time.lte.${ends}),and(created_at.gte.${starts},created_at.lte.${ends}))`);
      p.append('playbook_id', `eq.${ids.playbook}`);
    });
    expect(windowed.statusCode, windowed.payload).toBe(200);
    expect(windowed.headers['content-range']).toBe('0-0/1');
    expect(windowed.json()[0]).toMatchObject({ id: ids.runCheck, check: { id: ids.check }, parameters: { token: '***' } });

    const byConfig = await list((p) => p.append('config_id', `eq.${ids.config}`));
    expect(byConfig.json()[0]).toMatchObject({ id: ids.runConfig, config: { id: ids.config, name: 'web-1', type: 'Kubernetes::Pod', config_class: 'Pod' } });
    const byComponent = await list((p) => p.append('component_id', `eq.${ids.component}`));
    expect(byComponent.json()[0]).toMatchObject({ id: ids.runComponent, component: { id: ids.component, name: 'checkout', icon: 'shop' } });
  });

  it('a check drawer tab: runs of one check, with count', async () => {
    const res = await get(`playbook_runs?check_id=eq.${ids.check}&select=id,status,playbooks(id,title)&order=created_at.desc&limit=50`, { prefer: 'count=exact' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-range']).toBe('0-0/1');
  });

  it('a secret parameter cannot be found by filtering on its sealed value', async () => {
    expect(await rows('playbook_runs?parameters->>token=like.enc*&select=id')).toEqual([]);
  });

  it('agents_summary counts runs per agent; playbooks_for_agent lists what an agent runs', async () => {
    await t.db.query('UPDATE playbook_runs SET agent_id = $1 WHERE id = $2', [ids.agent, ids.old]);
    const [agent] = await rows(`agents_summary?id=eq.${ids.agent}&select=name,playbook_runs_count`);
    expect(agent).toEqual({ name: 'edge-1', playbook_runs_count: 1 });
    expect(await rows('playbooks_for_agent')).toEqual([
      { agent_name: 'edge-1', person_id: null, agent_id: ids.agent, playbook_ids: [ids.playbook] },
    ]);
  });

  it('viewers read runs, actions and approvals; the log lines relation too', async () => {
    for (const path of ['playbook_runs?select=id', 'playbook_run_actions?select=id', 'playbook_approvals?select=id',
      'playbook_run_action_logs?select=seq', `rpc/get_playbook_run_actions?run_id=${ids.runCheck}`, 'playbook_names']) {
      const res = await get(path, viewer);
      expect(res.statusCode, `${path}: ${res.payload}`).toBe(200);
    }
  });

  it('runs and actions are not written through /api/db', async () => {
    const res = await t.app.inject({
      method: 'PATCH', url: `/api/db/playbook_runs?id=eq.${ids.runCheck}`, headers: { ...admin, 'content-type': 'application/json' },
      payload: { status: 'completed' },
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });
});
