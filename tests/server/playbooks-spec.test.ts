import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * Playbook specs through /api/db as the reference UI writes them (PlaybookSpecsForm: POST with name = title and
 * created_by, PATCH ?id=eq. with id/source/title/spec/category/description/icon, PATCH {deleted_at} to delete), every
 * spec field, and bad input answered 400 by path (both doors: the CR door judges with the same kind schema).
 */
let t: TestContext;
let editor: { id: string; headers: Record<string, string> };
let admin: { id: string; headers: Record<string, string> };
let viewer: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  const e = await makePerson(t.db, { roles: ['editor'] });
  const a = await makePerson(t.db, { roles: ['admin'] });
  editor = { id: e.id, headers: await sessionHeaders(t.db, e.id) };
  admin = { id: a.id, headers: await sessionHeaders(t.db, a.id) };
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
});
afterAll(async () => {
  await t?.close();
});

type Method = 'POST' | 'PATCH' | 'DELETE' | 'GET';
const api = (method: Method, url: string, headers: Record<string, string>, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api/db/${url}`, headers: { ...headers, ...extra }, payload: payload as never });
const rows = async () => Number((await t.db.query('SELECT count(*) FROM playbooks')).rows[0].count);

const echo = { actions: [{ name: 'say', exec: { script: 'echo {{ .params.who }}' } }], parameters: [{ name: 'who', default: 'world' }] };

/** Every field of the reference's Playbook spec, each valid. */
const FULL = {
  title: 'Restart pod',
  description: 'Restarts a pod and reports',
  icon: 'kubernetes',
  category: 'Kubernetes',
  on: {
    canary: [{ event: 'failed', filter: 'check.name.startsWith("api")', labels: { team: 'sre' } }],
    component: [{ event: 'unhealthy' }],
    config: [{ event: 'created', filter: 'config.type == "Kubernetes::Pod"' }],
    schedule: [{ schedule: '*/15 * * * *', parameters: { who: 'cron' } }, { schedule: '@every 1h30m' }],
    webhook: {
      path: 'restart-pod',
      authentication: {
        basic: { username: 'hook', password: 'secret' }, github: { token: 't' }, svix: { secret: 's', verifyTimestamp: '5m' },
        jwt: { jwksUri: 'https://issuer.example/.well-known/jwks.json' },
      },
    },
  },
  checks: [{ types: ['http'], labelSelector: 'team=sre' }],
  configs: [{ types: ['Kubernetes::Pod'], tagSelector: 'cluster=prod' }],
  components: [{ name: 'web', namespace: 'default' }],
  parameters: [
    { name: 'who', label: 'Who', default: '{{ .config.name }}', required: true, icon: 'user', description: 'a name',
      type: 'text', properties: { minLength: 1, maxLength: 63, regex: '^[a-z-]+$', format: 'dns1123', multiline: 'false' } },
    { name: 'force', type: 'checkbox', default: 'false' },
    { name: 'mode', type: 'list', properties: { options: [{ label: 'Soft', value: 'soft' }, { label: 'Hard', value: 'hard' }] } },
    { name: 'owner', type: 'people' }, { name: 'team', type: 'team' }, { name: 'check', type: 'check' },
    { name: 'config', type: 'config' }, { name: 'component', type: 'component', dependsOn: ['config'] },
    { name: 'patch', type: 'code', properties: { language: 'yaml' } }, { name: 'token', type: 'secret' },
    { name: 'cpu', type: 'millicores', properties: { min: 100, max: 4000 } }, { name: 'mem', type: 'bytes' },
    { name: 'wait', type: 'duration' },
  ],
  actions: [
    {
      name: 'restart', if: 'success()', delay: '10s', timeout: '5m', runsOn: ['local'], templatesOn: 'host', contentType: 'text/plain',
      retry: { limit: 3, duration: '10s', exponent: { multiplier: 2 }, jitter: 10 },
      exec: { script: 'kubectl delete pod {{ .config.name }} -n $(.config.tags.namespace)' },
    },
    { name: 'wait', delay: 'params.wait != "" ? params.wait : "30s"', http: { url: 'http://127.0.0.1:1/{{ .run.id }}' } },
    { name: 'report', if: 'always()', sql: { driver: 'postgres', url: 'postgres://127.0.0.1:1/x', query: "SELECT '{{ (getAction \"restart\").result.stdout }}'" } },
    { name: 'notify', if: 'failure() || timeout()', notification: { url: 'generic+http://127.0.0.1:1/hook', title: 'failed', message: '{{ .user.email }}' } },
    { name: 'pod', pod: { name: 'debug', spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
    { name: 'logs', logs: { kubernetes: { kind: 'Pod', namespace: 'default', name: '{{ .config.name }}' } } },
  ],
  filters: ['config.type == "Kubernetes::Pod"'],
  runsOn: ['local'],
  templatesOn: 'host',
  env: [{ name: 'REGION', value: 'eu' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
  approval: { type: 'any', approvers: { people: ['ops@example.test'], teams: ['sre'] } },
  permissions: [{ ref: 'x', role: 'runner', team: 'sre' }],
  timeout: '30m',
  jsonSchema: { type: 'object' },
  mcp: { enabled: true },
  ui: { hidden: false },
};

describe('playbooks through /api/db as the reference UI writes them', () => {
  let id: string;

  it('POST with name = title, source UI and created_by: 201, every spec field stored as written', async () => {
    const res = await api('POST', 'playbooks?select=id,name,title,category,description,icon,source,created_by,spec', editor.headers, {
      title: 'Restart pod', name: 'Restart pod', source: 'UI', category: undefined, spec: FULL, created_by: editor.id,
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = res.json();
    expect(row).toMatchObject({ name: 'Restart pod', title: 'Restart pod', category: 'Kubernetes', source: 'UI', created_by: editor.id,
      description: 'Restarts a pod and reports', icon: 'kubernetes' });
    expect(row.spec).toEqual(FULL);
    id = row.id;
  });

  it('PATCH ?id=eq. with the body the reference UI sends (id, source, title, spec, category, description, icon)', async () => {
    const spec = { ...echo, category: 'Demo' };
    const res = await api('PATCH', `playbooks?id=eq.${id}`, editor.headers, {
      id, source: 'UI', title: 'Echo', spec, category: spec.category, description: 'says hi', icon: 'terminal',
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    const { rows: [row] } = await t.db.query('SELECT title, category, description, icon, spec, source FROM playbooks WHERE id = $1', [id]);
    expect(row).toEqual({ title: 'Echo', category: 'Demo', description: 'says hi', icon: 'terminal', spec, source: 'UI' });
  });

  it('PATCH {deleted_at} and DELETE ?id=eq. soft delete', async () => {
    const other = (await api('POST', 'playbooks?select=id', editor.headers, { title: 'Gone', name: 'Gone', spec: echo },
      { prefer: 'return=representation' })).json()[0].id;
    expect((await api('PATCH', `playbooks?id=eq.${id}`, editor.headers, { deleted_at: 'now()' })).statusCode).toBeLessThan(300);
    expect((await api('DELETE', `playbooks?id=eq.${other}`, admin.headers)).statusCode).toBeLessThan(300);
    const { rows: gone } = await t.db.query('SELECT deleted_at FROM playbooks WHERE id = ANY($1)', [[id, other]]);
    expect(gone).toHaveLength(2);
    expect(gone.every((r) => r.deleted_at !== null)).toBe(true);
    const list = await api('GET', 'playbooks?deleted_at=is.null&select=id', viewer);
    expect(list.json().map((r: { id: string }) => r.id)).not.toContain(id);
  });

  it('title and spec are required; upserts and filterless PATCH/DELETE are refused; id cannot change', async () => {
    const before = await rows();
    const noTitle = await api('POST', 'playbooks', editor.headers, { name: 'x', spec: echo });
    expect(noTitle.statusCode).toBe(400);
    expect(noTitle.json().message).toMatch(/title is required/);
    const noSpec = await api('POST', 'playbooks', editor.headers, { name: 'x', title: 'x' });
    expect(noSpec.statusCode).toBe(400);
    expect(noSpec.json().message).toMatch(/spec/);
    const upsert = await api('POST', 'playbooks', editor.headers, { name: 'x', title: 'x', spec: echo },
      { prefer: 'resolution=merge-duplicates' });
    expect(upsert.statusCode).toBe(405);
    expect((await api('PATCH', 'playbooks', editor.headers, { title: 'all' })).statusCode).toBe(400);
    expect((await api('DELETE', 'playbooks', editor.headers)).statusCode).toBe(400);
    expect(await rows()).toBe(before);
    const made = (await api('POST', 'playbooks?select=id', editor.headers, { name: 'keep', title: 'keep', spec: echo },
      { prefer: 'return=representation' })).json()[0].id;
    const moved = await api('PATCH', `playbooks?id=eq.${made}`, editor.headers, { id: '00000000-0000-0000-0000-000000000001', title: 'k' });
    expect(moved.statusCode).toBe(400);
    const blank = await api('PATCH', `playbooks?id=eq.${made}`, editor.headers, { title: '  ' });
    expect(blank.statusCode).toBe(400);
  });

  it('roles: viewer 403, editor and admin write', async () => {
    const res = await api('POST', 'playbooks', viewer, { name: 'v', title: 'v', spec: echo });
    expect(res.statusCode).toBe(403);
    expect((await api('POST', 'playbooks', admin.headers, { name: 'by-admin', title: 'by-admin', spec: echo })).statusCode).toBe(201);
  });

  it('a row from another source is read-only here (409 naming its source)', async () => {
    const { rows: [r] } = await t.db.query(
      "INSERT INTO playbooks (name, title, spec, source) VALUES ('agent-pb', 'agent-pb', $1, 'Agent') RETURNING id", [echo]);
    const res = await api('PATCH', `playbooks?id=eq.${r.id}`, editor.headers, { title: 'mine now' });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/managed by its source \(Agent\)/);
  });
});

const action = (extra: Record<string, unknown>) => ({ name: 'a', exec: { script: 'true' }, ...extra });

/** A bad spec, the path its 400 names, and a word of the message. */
const BAD: Array<[string, Record<string, unknown>, string, RegExp]> = [
  ['no actions', { actions: [] }, 'spec.actions', /at least one action/],
  ['unknown parameter type', { actions: [action({})], parameters: [{ name: 'p', type: 'colour' }] }, 'spec.parameters[0].type', /unknown parameter type/],
  ['gitops', { actions: [action({}), { name: 'b', gitops: { repo: {} } }] }, 'spec.actions[1].gitops', /action type gitops is not supported by this console/],
  ['azureDevopsPipeline', { actions: [{ name: 'b', azureDevopsPipeline: {} }] }, 'spec.actions[0].azureDevopsPipeline', /not supported/],
  ['two types', { actions: [action({ http: { url: 'http://x' } })] }, 'spec.actions[0].http', /exactly one type/],
  ['no type', { actions: [{ name: 'a' }] }, 'spec.actions[0]', /needs one of exec, http/],
  ['nameless action', { actions: [{ exec: { script: 'x' } }] }, 'spec.actions[0].name', /expected string|required/],
  ['duplicate action name', { actions: [action({}), action({})] }, 'spec.actions[1].name', /another action is named a/],
  ['unknown template function', { actions: [action({ exec: { script: 'echo {{ shout .params.x }}' } })] }, 'spec.actions[0].exec.script', /"shout" not defined/],
  ['$( ) template', { actions: [action({ exec: { script: 'echo $(.params.x | nosuch)' } })] }, 'spec.actions[0].exec.script', /"nosuch"/],
  ['bad if', { actions: [action({ if: 'nope() && success()' })] }, 'spec.actions[0].if', /nope/],
  ['bad delay', { actions: [action({ delay: 'params.x +' })] }, 'spec.actions[0].delay', /./],
  ['bad filter', { actions: [action({})], filters: ['config.type =='] }, 'spec.filters[0]', /./],
  ['bad trigger filter', { actions: [action({})], on: { canary: [{ event: 'failed', filter: 'nosuch(check)' }] } }, 'spec.on.canary[0].filter', /nosuch/],
  ['trigger without event', { actions: [action({})], on: { config: [{ filter: 'true' }] } }, 'spec.on.config[0].event', /./],
  ['bad schedule', { actions: [action({})], on: { schedule: [{ schedule: 'every day' }] } }, 'spec.on.schedule[0].schedule', /invalid schedule/],
  ['bad timeout', { actions: [action({})], timeout: 'soon' }, 'spec.timeout', /duration/],
  ['bad action timeout', { actions: [action({ timeout: '5 minutes' })] }, 'spec.actions[0].timeout', /duration/],
  ['bad approval type', { actions: [action({})], approval: { type: 'most' } }, 'spec.approval.type', /any or all/],
  ['bad templatesOn', { actions: [action({ templatesOn: 'cloud' })] }, 'spec.actions[0].templatesOn', /host or agent/],
  ['blank code language', { actions: [action({})], parameters: [{ name: 'c', type: 'code', properties: { language: ' ' } }] }, 'spec.parameters[0].properties.language', /language/],
  ['min not a number nor a duration', { actions: [action({})], parameters: [{ name: 'r', type: 'duration', properties: { min: 'banana' } }] }, 'spec.parameters[0].properties.min', /a number or a duration/],
  ['duration max below min', { actions: [action({})], parameters: [{ name: 'r', type: 'duration', properties: { min: '1h', max: '30m' } }] }, 'spec.parameters[0].properties.max', /below min/],
  ['duration bound on a text param', { actions: [action({})], parameters: [{ name: 't', type: 'text', properties: { max: '5m' } }] }, 'spec.parameters[0].properties.max', /a number/],
  ['bad regex', { actions: [action({})], parameters: [{ name: 't', type: 'text', properties: { regex: '([a-' } }] }, 'spec.parameters[0].properties.regex', /regular expression/],
  ['empty list', { actions: [action({})], parameters: [{ name: 'l', type: 'list', properties: { options: [] } }] }, 'spec.parameters[0].properties.options', /at least one option/],
  ['dependsOn nothing', { actions: [action({})], parameters: [{ name: 'x', dependsOn: ['y'] }] }, 'spec.parameters[0].dependsOn[0]', /no parameter is named y/],
  ['bad default template', { actions: [action({})], parameters: [{ name: 'x', default: '{{ .config.name' }] }, 'spec.parameters[0].default', /unclosed/],
  ['bad webhook auth', { actions: [action({})], on: { webhook: { path: 'h', authentication: { jwt: { jwksUri: 'nope' } } } } }, 'spec.on.webhook.authentication.jwt.jwksUri', /URL/],
  ['bad retry', { actions: [action({ retry: { limit: -1 } })] }, 'spec.actions[0].retry.limit', /./],
  ['nameless env', { actions: [action({})], env: [{ value: 'x' }] }, 'spec.env[0].name', /./],
];

describe('bad input is a 400 naming the path, both doors', () => {
  it.each(BAD)('%s', async (_what, spec, path, message) => {
    const before = await rows();
    const res = await api('POST', 'playbooks', editor.headers, { name: 'bad', title: 'bad', spec });
    expect(res.statusCode, res.body).toBe(400);
    const details = res.json().details as Record<string, string>;
    expect(Object.keys(details), res.body).toContain(path);
    expect(details[path]).toMatch(message);
    expect(res.json().message).toMatch(/^invalid Playbook spec: spec/);
    expect(await rows()).toBe(before);
    // the CR door judges with the kind's schema: the same problem at the same path
    const cr = kindByKind('Playbook')!.spec.safeParse(spec);
    expect(cr.success).toBe(false);
    const crPaths = cr.error!.issues.map((i) => ['spec', ...i.path].map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, ''));
    expect(crPaths).toContain(path);
  });

  it('names the gitops refusal as the reference message reads', async () => {
    const res = await api('POST', 'playbooks', editor.headers, { name: 'g', title: 'g', spec: { actions: [action({}), { name: 'b', gitops: {} }] } });
    expect(res.json().message).toBe('invalid Playbook spec: spec.actions[1].gitops: action type gitops is not supported by this console');
  });

  it('a PATCH with a bad spec is refused by path and changes nothing', async () => {
    const made = (await api('POST', 'playbooks?select=id', editor.headers, { name: 'p1', title: 'p1', spec: echo },
      { prefer: 'return=representation' })).json()[0].id;
    const res = await api('PATCH', `playbooks?id=eq.${made}`, editor.headers, { spec: { actions: [{ name: 'x', ai: {} }] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toHaveProperty(['spec.actions[0].ai']);
    const { rows: [row] } = await t.db.query('SELECT spec FROM playbooks WHERE id = $1', [made]);
    expect(row.spec).toEqual(echo);
  });

  it('a webhook path is unique among live playbooks: 409 naming it, free again once deleted', async () => {
    const hook = (path: string) => ({ ...echo, on: { webhook: { path } } });
    const first = await api('POST', 'playbooks?select=id', editor.headers, { name: 'h1', title: 'h1', spec: hook('deploy-hook') },
      { prefer: 'return=representation' });
    expect(first.statusCode).toBe(201);
    const dup = await api('POST', 'playbooks', editor.headers, { name: 'h2', title: 'h2', spec: hook('deploy-hook') });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toMatch(/webhook path deploy-hook is already used/);
    const other = (await api('POST', 'playbooks?select=id', editor.headers, { name: 'h3', title: 'h3', spec: hook('other-hook') },
      { prefer: 'return=representation' })).json()[0].id;
    const moved = await api('PATCH', `playbooks?id=eq.${other}`, editor.headers, { spec: hook('deploy-hook') });
    expect(moved.statusCode).toBe(409);
    await api('DELETE', `playbooks?id=eq.${first.json()[0].id}`, editor.headers);
    expect((await api('POST', 'playbooks', editor.headers, { name: 'h4', title: 'h4', spec: hook('deploy-hook') })).statusCode).toBe(201);
  });
});

const REFERENCE = fileURLToPath(new URL('../fixtures/playbooks/reference', import.meta.url));
const referenceFixtures = readdirSync(REFERENCE).filter((f) => f.endsWith('.yaml')).sort();

describe('the reference\'s playbooks (mission-control fixtures) as written', () => {
  it.each(referenceFixtures)('%s', async (file) => {
    const doc = parse(readFileSync(join(REFERENCE, file), 'utf8')) as { metadata: { name: string }; spec: Record<string, unknown> };
    const res = await api('POST', 'playbooks', editor.headers, { name: doc.metadata.name, title: doc.metadata.name, spec: doc.spec });
    if (file === 'gitops.yaml') {
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('invalid Playbook spec: spec.actions[0].gitops: action type gitops is not supported by this console');
    } else {
      expect(res.statusCode, res.body).toBe(201);
    }
  });
});

describe('GET /api/schemas/playbook-spec.schema.json', () => {
  it('serves the spec as JSON Schema to a signed-in user', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/schemas/playbook-spec.schema.json', headers: viewer });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/schema\+json/);
    const schema = res.json();
    expect(schema.$id).toBe('playbook-spec.schema.json');
    expect(schema.required).toContain('actions');
    expect(schema.properties.parameters.items.properties.type.enum).toContain('millicores');
    expect(Object.keys(schema.properties.actions.items.properties)).toEqual(expect.arrayContaining(['name', 'if', 'exec', 'http', 'sql', 'retry']));
    expect((await t.app.inject({ method: 'GET', url: '/api/schemas/playbook-spec.schema.json' })).statusCode).toBe(401);
  });
});
