import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// The /api/playbook routes as a client calls them: list matching, params with defaults rendered, run with each
// parameter type checked, the run row and status (secrets ***), approve, cancel, retry, plan, roles and the
// playbooks.disable flag. Runs that must not start are made on approval-gated playbooks, so the engine leaves them.

let t: TestContext;
let admin: Record<string, string>;
let editor: Record<string, string>;
let viewer: Record<string, string>;
let approver: Record<string, string>;
let approverEmail = '';
const ids: Record<string, string> = {};
const SECRET = 's3cr3t-value-42';

const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method, url, headers: { ...headers, ...(payload !== undefined && { 'content-type': 'application/json' }) }, payload: payload as never });
const one = async (sql: string, values: unknown[] = []) => (await t.db.query(sql, values)).rows[0];
const playbook = async (name: string, spec: Record<string, unknown>) =>
  (await one(`INSERT INTO playbooks (name, title, spec, source) VALUES ($1, $2, $3, 'UI') RETURNING id`, [name, spec.title ?? name, spec])).id as string;

const GATE = () => ({ approval: { type: 'any', approvers: { people: [approverEmail] } } });
const ACTIONS = [{ name: 'say', exec: { script: 'echo {{.params.reason}} on {{.check.name}}' } }];

beforeAll(async () => {
  t = await createTestApp({ SECRETS_KEY: 'a'.repeat(64) });
  admin = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  editor = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
  const ap = await makePerson(t.db, { roles: ['editor'] });
  approverEmail = ap.email;
  approver = await bearerHeaders(t.db, ap.id);
  const canary = (await one(`INSERT INTO canaries (name, spec, source) VALUES ('web', '{}', 'UI') RETURNING id`)).id;
  ids.check = (await one(`INSERT INTO checks (canary_id, type, name, status, labels) VALUES ($1, 'http', 'web-home', 'unhealthy', '{"team":"shop"}') RETURNING id`, [canary])).id;
  ids.otherCheck = (await one(`INSERT INTO checks (canary_id, type, name, status, labels) VALUES ($1, 'dns', 'dns-a', 'healthy', '{"team":"net"}') RETURNING id`, [canary])).id;
  ids.config = (await one(`INSERT INTO config_items (config_class, type, name) VALUES ('Pod', 'Kubernetes::Pod', 'web-1') RETURNING id`)).id;
  ids.component = (await one(`INSERT INTO components (name, external_id) VALUES ('checkout', 'checkout') RETURNING id`)).id;
  ids.team = (await one(`INSERT INTO teams (name, created_by) VALUES ('sre', $1) RETURNING id`, [ap.id])).id;
  ids.approverId = ap.id;

  ids.onShop = await playbook('restart-shop', {
    title: 'Restart shop', checks: [{ labelSelector: 'team=shop' }], ...GATE(),
    parameters: [
      { name: 'reason', type: 'text', default: 'fix {{.check.name}}', required: true, properties: { maxLength: 40 } },
      { name: 'token', type: 'secret' },
    ],
    actions: ACTIONS,
  });
  ids.onHttp = await playbook('http-only', { checks: [{ types: ['http'] }], filters: ["check.status == 'unhealthy'"], ...GATE(), actions: ACTIONS });
  ids.onHealthy = await playbook('healthy-only', { checks: [{ types: ['http'] }], filters: ["check.status == 'healthy'"], actions: ACTIONS });
  ids.onPods = await playbook('pods', { configs: [{ types: ['Kubernetes::Pod'] }], ...GATE(), actions: ACTIONS });
  ids.onComponents = await playbook('components', { components: [{ name: 'checkout' }], ...GATE(), actions: ACTIONS });
  ids.free = await playbook('free', {
    ...GATE(),
    parameters: [
      { name: 'name', type: 'text', properties: { minLength: 2, maxLength: 10, regex: '^[a-z-]+$', format: 'dns1123' } },
      { name: 'count', type: 'text', properties: { min: 1, max: 5 } },
      { name: 'note', type: 'text', properties: { multiline: true } },
      { name: 'force', type: 'checkbox' },
      { name: 'env', type: 'list', properties: { options: [{ label: 'Prod', value: 'prod' }, { label: 'Dev', value: 'dev' }] } },
      { name: 'owner', type: 'people' }, { name: 'team', type: 'team' }, { name: 'check', type: 'check' },
      { name: 'config', type: 'config' }, { name: 'component', type: 'component' },
      { name: 'values', type: 'code', properties: { language: 'yaml' } }, { name: 'body', type: 'code', properties: { language: 'json' } },
      { name: 'password', type: 'secret' }, { name: 'cpu', type: 'millicores' }, { name: 'memory', type: 'bytes' },
      { name: 'wait', type: 'duration' },
    ],
    actions: [{ name: 'show', exec: { script: 'echo {{.params.name}} {{.params.password}}' } }, { name: 'next', exec: { script: 'echo {{ (getAction "show").result.stdout }}' } }],
  });
  await playbook('deleted', { actions: ACTIONS }).then((id) => t.db.query('UPDATE playbooks SET deleted_at = now() WHERE id = $1', [id]));
});
afterAll(() => t.close());

describe('GET /api/playbook/list', () => {
  it('without a resource: every live playbook, with its parameters', async () => {
    const res = await call('GET', '/api/playbook/list', viewer);
    expect(res.statusCode).toBe(200);
    const names = (res.json() as { name: string }[]).map((p) => p.name).sort();
    expect(names).toEqual(['components', 'free', 'healthy-only', 'http-only', 'pods', 'restart-shop']);
    const shop = (res.json() as { name: string; parameters: unknown[]; title: string }[]).find((p) => p.name === 'restart-shop')!;
    expect(shop).toMatchObject({ title: 'Restart shop', parameters: [{ name: 'reason' }, { name: 'token' }] });
  });

  it('for a check: those whose selectors select it and whose filters hold', async () => {
    const list = async (q: string) => ((await call('GET', `/api/playbook/list?${q}`, viewer)).json() as { name: string }[]).map((p) => p.name).sort();
    expect(await list(`check_id=${ids.check}`)).toEqual(['http-only', 'restart-shop']);
    expect(await list(`check_id=${ids.otherCheck}`)).toEqual([]);
    expect(await list(`config_id=${ids.config}`)).toEqual(['pods']);
    expect(await list(`component_id=${ids.component}`)).toEqual(['components']);
  });

  it('two resources: 400; an unknown one: 404; a bad id: 400', async () => {
    const two = await call('GET', `/api/playbook/list?check_id=${ids.check}&config_id=${ids.config}`, viewer);
    expect(two.statusCode).toBe(400);
    expect(two.json()).toHaveProperty('error');
    expect((await call('GET', '/api/playbook/list?check_id=00000000-0000-4000-8000-000000000001', viewer)).statusCode).toBe(404);
    expect((await call('GET', '/api/playbook/list?check_id=nope', viewer)).statusCode).toBe(400);
  });
});

describe('POST /api/playbook/{id}/params', () => {
  it('renders defaults against the resource, as the reference UI asks (id in the body too)', async () => {
    const res = await call('POST', `/api/playbook/${ids.onShop}/params`, viewer, { id: ids.onShop, check_id: ids.check });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual({ params: [
      { name: 'reason', type: 'text', default: 'fix web-home', required: true, properties: { maxLength: 40 } },
      { name: 'token', type: 'secret' },
    ] });
  });

  it('a resource the playbook does not apply to: 400; an unknown playbook: 404', async () => {
    expect((await call('POST', `/api/playbook/${ids.onShop}/params`, viewer, { check_id: ids.otherCheck })).statusCode).toBe(400);
    expect((await call('POST', '/api/playbook/00000000-0000-4000-8000-000000000001/params', viewer, {})).statusCode).toBe(404);
  });
});

describe('POST /api/playbook/run', () => {
  it('creates the run (201 {run_id, starts_at}) with defaults filled; the secret is stored sealed and read ***', async () => {
    const res = await call('POST', '/api/playbook/run', editor, { id: ids.onShop, check_id: ids.check, params: { token: SECRET } });
    expect(res.statusCode, res.payload).toBe(201);
    const { run_id, starts_at } = res.json();
    expect(Number.isNaN(Date.parse(starts_at))).toBe(false);
    ids.shopRun = run_id;
    const stored = await one('SELECT status, check_id, parameters FROM playbook_runs WHERE id = $1', [run_id]);
    expect(stored).toMatchObject({ status: 'pending_approval', check_id: ids.check, parameters: { reason: 'fix web-home' } });
    expect(stored.parameters.token).toMatch(/^enc:v1:/);

    const row = await call('GET', `/api/playbook/run/${run_id}`, viewer);
    expect(row.statusCode).toBe(200);
    expect(row.json()).toMatchObject({ id: run_id, playbook_id: ids.onShop, parameters: { reason: 'fix web-home', token: '***' } });
    expect(row.json()).not.toHaveProperty('lease_owner');
    expect(row.payload).not.toContain(SECRET);

    const status = await call('GET', `/api/playbook/run/${run_id}/status`, viewer);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ playbook: { id: ids.onShop, name: 'restart-shop' }, run: { id: run_id, parameters: { token: '***' } }, actions: [] });
    expect(status.payload).not.toContain('enc:v1:');
  });

  it('roles: a viewer may not run (403); an editor may', async () => {
    expect((await call('POST', '/api/playbook/run', viewer, { id: ids.onPods, config_id: ids.config })).statusCode).toBe(403);
    expect((await call('POST', '/api/playbook/run', editor, { id: ids.onPods, config_id: ids.config })).statusCode).toBe(201);
    expect((await call('POST', '/api/playbook/run', editor, { id: ids.onComponents, component_id: ids.component })).statusCode).toBe(201);
  });

  it('refuses what does not apply: another resource, none when one is needed, filters, two resources, a deleted playbook', async () => {
    const bad = async (body: Record<string, unknown>, code = 400) => {
      const res = await call('POST', '/api/playbook/run', editor, body);
      expect(res.statusCode, JSON.stringify(body) + res.payload).toBe(code);
      expect(res.json()).toHaveProperty('error');
      return res.json().message as string;
    };
    expect(await bad({ id: ids.onShop, check_id: ids.otherCheck })).toMatch(/does not apply/);
    expect(await bad({ id: ids.onShop })).toMatch(/check_id/);
    expect(await bad({ id: ids.onHealthy, check_id: ids.check })).toMatch(/does not apply/);
    await bad({ id: ids.onShop, check_id: ids.check, config_id: ids.config });
    await bad({ id: ids.free, check_id: ids.check });
    await bad({ id: '00000000-0000-4000-8000-000000000009' }, 404);
    await bad({ id: ids.onShop, check_id: '00000000-0000-4000-8000-000000000009' }, 404);
    expect(await bad({ id: ids.onShop, check_id: ids.check, params: { reason: 'x'.repeat(41) } })).toMatch(/parameter reason/);
  });

  it('checks each parameter by its type (good values run, each bad one is a 400 naming it)', async () => {
    const good = {
      name: 'web-a', count: '3', note: 'two\nlines', force: 'true', env: 'prod', owner: ids.approverId, team: ids.team,
      check: ids.check, config: ids.config, component: ids.component, values: 'a: 1\nb: [2]', body: '{"a":1}',
      password: 'pw', cpu: '500m', memory: '512Mi', wait: '1h30m',
    };
    const ok = await call('POST', '/api/playbook/run', editor, { id: ids.free, params: good });
    expect(ok.statusCode, ok.payload).toBe(201);
    const alt = await call('POST', '/api/playbook/run', editor, { id: ids.free, params: { ...good, force: false, cpu: '0.5', memory: '2Gi', count: 5 } });
    expect(alt.statusCode, alt.payload).toBe(201);
    const cases: [string, unknown][] = [
      ['name', 'a'], ['name', 'way-too-long-name'], ['name', 'Web_A'], ['count', '0'], ['count', '9'], ['count', 'x'],
      ['name', 'a\nb'], ['force', 'yes'], ['env', 'staging'], ['owner', '00000000-0000-4000-8000-000000000001'],
      ['owner', 'bob'], ['team', '00000000-0000-4000-8000-000000000001'], ['check', ids.config], ['config', ids.check],
      ['component', ids.check], ['values', 'a: [1'], ['body', '{a:1}'], ['cpu', '2 cores'], ['memory', '5GB'],
      ['wait', 'soon'], ['nosuch', 'x'],
    ];
    for (const [name, value] of cases) {
      const res = await call('POST', '/api/playbook/run', editor, { id: ids.free, params: { ...good, [name]: value } });
      expect(res.statusCode, `${name}=${JSON.stringify(value)}: ${res.payload}`).toBe(400);
      expect(res.json().message, `${name}=${JSON.stringify(value)}`).toContain(`parameter ${name}`);
    }
  });

  it('a required parameter left empty without a default: 400 naming it', async () => {
    const id = await playbook('needs', { parameters: [{ name: 'ticket', type: 'text', required: true }], ...GATE(), actions: ACTIONS });
    const res = await call('POST', '/api/playbook/run', editor, { id, params: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('parameter ticket: is required');
    expect((await t.db.query('SELECT 1 FROM playbook_runs WHERE playbook_id = $1', [id])).rowCount).toBe(0);
  });

  it('a re-run sending a secret back as *** reuses the parent run\'s sealed value', async () => {
    const res = await call('POST', '/api/playbook/run', editor, { id: ids.onShop, check_id: ids.check, params: { token: '***' }, parent_id: ids.shopRun });
    expect(res.statusCode, res.payload).toBe(201);
    const [parent, child] = await Promise.all([ids.shopRun, res.json().run_id].map((id) => one('SELECT parameters, parent_id FROM playbook_runs WHERE id = $1', [id])));
    expect(child.parameters.token).toBe(parent.parameters.token);
    expect(child.parent_id).toBe(ids.shopRun);
  });
});

describe('approve, cancel, retry', () => {
  it('approve: 403 for someone not listed; the listed approver schedules it', async () => {
    const { run_id } = (await call('POST', '/api/playbook/run', editor, { id: ids.onPods, config_id: ids.config })).json();
    expect((await call('POST', `/api/playbook/run/approve/${run_id}`, editor)).statusCode).toBe(403);
    expect((await call('POST', `/api/playbook/run/approve/${run_id}`, viewer)).statusCode).toBe(403);
    const res = await call('POST', `/api/playbook/run/approve/${run_id}`, approver);
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual({ message: 'playbook run approved' });
    expect((await one('SELECT status FROM playbook_runs WHERE id = $1', [run_id])).status).not.toBe('pending_approval');
  });

  it('cancel: {"message":"playbook run cancelled"}; again: 400; a viewer: 403; unknown: 404', async () => {
    const { run_id } = (await call('POST', '/api/playbook/run', editor, { id: ids.onComponents, component_id: ids.component })).json();
    expect((await call('POST', `/api/playbook/run/cancel/${run_id}`, viewer)).statusCode).toBe(403);
    // as curl sends it: a JSON content type and no body
    const res = await t.app.inject({ method: 'POST', url: `/api/playbook/run/cancel/${run_id}`, headers: { ...editor, 'content-type': 'application/json' } });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.json()).toEqual({ message: 'playbook run cancelled' });
    expect((await call('POST', `/api/playbook/run/cancel/${run_id}`, editor)).statusCode).toBe(400);
    expect((await call('POST', '/api/playbook/run/cancel/00000000-0000-4000-8000-000000000001', editor)).statusCode).toBe(404);
    expect((await call('GET', '/api/playbook/run/00000000-0000-4000-8000-000000000001', viewer)).statusCode).toBe(404);
  });

  it('retry: a failed run gets a child run (201) starting at the failed action; a run that did not fail: 400', async () => {
    const failed = (await one(`INSERT INTO playbook_runs (playbook_id, spec, status, end_time) SELECT id, spec, 'failed', now() FROM playbooks WHERE id = $1 RETURNING id`, [ids.free])).id;
    await t.db.query(`INSERT INTO playbook_run_actions (name, status, playbook_run_id, result) VALUES ('show', 'completed', $1, '{"stdout":"ok"}'), ('next', 'failed', $1, null)`, [failed]);
    expect((await call('POST', `/api/playbook/run/${failed}/retry`, viewer)).statusCode).toBe(403);
    const res = await call('POST', `/api/playbook/run/${failed}/retry`, editor);
    expect(res.statusCode, res.payload).toBe(201);
    const child = await one('SELECT parent_id FROM playbook_runs WHERE id = $1', [res.json().run_id]);
    expect(child.parent_id).toBe(failed);
    expect((await call('POST', `/api/playbook/run/${ids.shopRun}/retry`, editor)).statusCode).toBe(400);
  });
});

describe('POST /api/playbook/{id}/plan', () => {
  it('renders each action without running it; secrets ***; getAction left for the run', async () => {
    const before = (await one('SELECT count(*)::int AS n FROM playbook_runs')).n;
    const res = await call('POST', `/api/playbook/${ids.free}/plan`, viewer, { params: { name: 'web-a', password: SECRET } });
    expect(res.statusCode, res.payload).toBe(200);
    const plan = res.json();
    expect(plan.params).toMatchObject({ name: 'web-a', password: '***' });
    expect(plan.actions[0]).toEqual({ name: 'show', type: 'exec', rendered: { script: 'echo web-a ***' } });
    expect(plan.actions[1]).toMatchObject({ name: 'next', type: 'exec', error: expect.stringContaining('show') });
    expect(res.payload).not.toContain(SECRET);
    expect((await one('SELECT count(*)::int AS n FROM playbook_runs')).n).toBe(before);
  });

  it('renders against the resource; bad params or a resource that does not apply: 400', async () => {
    const ok = await call('POST', `/api/playbook/${ids.onShop}/plan`, viewer, { check_id: ids.check });
    expect(ok.json().actions[0].rendered).toEqual({ script: 'echo fix web-home on web-home' });
    expect((await call('POST', `/api/playbook/${ids.free}/plan`, viewer, { params: { cpu: 'lots' } })).statusCode).toBe(400);
    expect((await call('POST', `/api/playbook/${ids.onHealthy}/plan`, viewer, { check_id: ids.check })).statusCode).toBe(400);
  });
});

describe('playbooks.disable', () => {
  it('every /api/playbook route answers 404 while it is set', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('playbooks.disable', 'true')`);
    try {
      for (const [method, url] of [['GET', '/api/playbook/list'], ['POST', `/api/playbook/${ids.free}/params`],
        ['POST', '/api/playbook/run'], ['GET', `/api/playbook/run/${ids.shopRun}`], ['GET', `/api/playbook/run/${ids.shopRun}/status`],
        ['POST', `/api/playbook/run/cancel/${ids.shopRun}`], ['POST', `/api/playbook/${ids.free}/plan`]] as const) {
        const res = await call(method, url, admin, method === 'POST' ? { id: ids.free } : undefined);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'playbooks.disable'`);
    }
    expect((await call('GET', '/api/playbook/list', admin)).statusCode).toBe(200);
  });
});
