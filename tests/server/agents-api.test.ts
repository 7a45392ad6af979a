import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../server/contracts/rbac.js';
import { verifySecret } from '../../server/lib/crypto.js';
import { parseAccessToken } from '../../server/plugins/auth.js';
import { generateAgent } from '../../server/modules/agents/generate.js';
import { until } from '../support/poll.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { connectLive, listen } from './ws-client.js';

// Issue 16, agents on the console side: POST /api/agent/generate, /api/db agents edits and deletes (± cleanup),
// agents_summary (counts, the 61 s status boundary, the reference client's exact list call), roles and agents.disable.

const LOCAL = '00000000-0000-0000-0000-000000000000';
let t: TestContext;
const headers: Partial<Record<Role, Record<string, string>>> = {};
let adminId: string;

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, role: Role = 'admin', payload?: unknown,
  extra: Record<string, string> = {}) {
  return t.app.inject({
    method, url, payload: payload as object,
    headers: { ...headers[role], ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...extra },
  });
}
const generate = (body: unknown, role: Role = 'admin') => call('POST', '/api/agent/generate', role, body);
const patch = (id: string, body: unknown, role: Role = 'admin') => call('PATCH', `/api/db/agents?id=eq.${id}`, role, body);
let seq = 0;
const uniqueName = (p = 'agent') => `${p}-${++seq}-${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await createTestApp();
  for (const role of ['admin', 'editor', 'commander', 'responder', 'viewer'] as Role[]) {
    const p = await makePerson(t.db, { roles: [role] });
    if (role === 'admin') adminId = p.id;
    headers[role] = await sessionHeaders(t.db, p.id);
  }
});
afterAll(() => t.close());

describe('POST /api/agent/generate', () => {
  it('creates a person of type agent, a 365-day token and the agents row in one go (201)', async () => {
    const res = await generate({ name: 'eu-west-prod', properties: { env: 'prod', region: 'eu-west-1' } });
    expect(res.statusCode, res.payload).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'agent_id', 'id', 'username']);
    expect(body.username).toMatch(/^agent-[0-9a-f]{16}$/);

    const person = (await t.db.query('SELECT name, email, type FROM people WHERE id = $1', [body.id])).rows[0];
    expect(person).toEqual({ name: 'eu-west-prod', email: `${body.username}@local`, type: 'agent' });
    // never able to sign in (no identity), no role rows (so never a viewer through a role)
    expect((await t.db.query('SELECT 1 FROM identities WHERE id = $1', [body.id])).rowCount).toBe(0);
    expect((await t.db.query('SELECT 1 FROM person_roles WHERE person_id = $1', [body.id])).rowCount).toBe(0);

    const agent = (await t.db.query('SELECT * FROM agents WHERE id = $1', [body.agent_id])).rows[0];
    expect(agent).toMatchObject({ name: 'eu-west-prod', person_id: body.id, username: body.username, created_by: adminId,
      properties: { env: 'prod', region: 'eu-west-1' }, deleted_at: null });

    const parsed = parseAccessToken(body.access_token)!;
    expect(parsed).not.toBeNull();
    const token = (await t.db.query(
      `SELECT name, person_id, created_by, value, extract(epoch FROM expires_at - now()) / 86400 AS days FROM access_tokens WHERE id = $1`,
      [parsed.id])).rows[0];
    expect(token.person_id).toBe(body.id);
    expect(token.created_by).toBeNull(); // a token carries its creator's roles: an agent's must carry none
    expect(token.name).toMatch(/^agent-\d{10}$/);
    expect(Number(token.days)).toBeGreaterThan(364.9);
    expect(Number(token.days)).toBeLessThanOrEqual(365);
    expect(await verifySecret(token.value, parsed.secret)).toBe(true);
  });

  it('the token works on /api/upstream/ping and is refused elsewhere (no roles: never a viewer)', async () => {
    const made = (await generate({ name: uniqueName('tok') })).json();
    const bearer = { authorization: `Bearer ${made.access_token}` };
    const ping = await t.app.inject({ method: 'GET', url: '/api/upstream/ping', headers: bearer });
    expect(ping.statusCode, ping.payload).toBe(200);
    expect((await t.db.query('SELECT last_seen FROM agents WHERE id = $1', [made.agent_id])).rows[0].last_seen).not.toBeNull();
    for (const url of ['/api/db/agents_summary?limit=1', '/api/db/canaries?limit=1', '/api/auth/whoami']) {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer });
      expect([401, 403], url).toContain(res.statusCode);
    }
  });

  it('the reference POST /api/agent/token gives a live agent another token', async () => {
    const made = (await generate({ name: uniqueName() })).json();
    const name = (await t.db.query('SELECT name FROM agents WHERE id = $1', [made.agent_id])).rows[0].name;
    const res = await call('POST', '/api/agent/token', 'admin', { AgentName: name });
    expect(res.statusCode, res.payload).toBe(201);
    expect(res.json()).toMatchObject({ id: made.id, username: made.username, agent_id: made.agent_id });
    expect(res.json().access_token).not.toBe(made.access_token);
    expect((await call('POST', '/api/agent/token', 'admin', { AgentName: 'no-such-agent' })).statusCode).toBe(404);
  });

  it('refuses bad input with 400, naming the field, and stores nothing', async () => {
    const before = (await t.db.query('SELECT count(*)::int AS n FROM people')).rows[0].n;
    const cases: Array<[unknown, string]> = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{}, 'name'],
      [{ name: 'a\u0007b' }, 'name'],
      [{ name: 'line\nbreak' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'ok', properties: { env: 5 } }, 'properties.env'],
      [{ name: 'ok', properties: { nested: { a: 'b' } } }, 'properties.nested'],
      [{ name: 'ok', properties: [] }, 'properties'],
    ];
    for (const [body, field] of cases) {
      const res = await generate(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json().details ?? {}), JSON.stringify(body)).toContain(field);
      if (field.startsWith('properties.')) expect(res.json().message).toContain(field);
    }
    expect((await t.db.query('SELECT count(*)::int AS n FROM people')).rows[0].n).toBe(before);
  });

  it('accepts 255 characters, quotes and $() in a name (kept as written)', async () => {
    for (const name of ['y'.repeat(255), `it's "$(rm -rf /)" \`x\``]) {
      const res = await generate({ name });
      expect(res.statusCode, res.payload).toBe(201);
      expect((await t.db.query('SELECT name FROM agents WHERE id = $1', [res.json().agent_id])).rows[0].name).toBe(name);
    }
  });

  it('a live duplicate is 409; a deleted agent\'s name can be used again', async () => {
    const name = uniqueName('dup');
    const first = await generate({ name });
    expect(first.statusCode).toBe(201);
    const again = await generate({ name });
    expect(again.statusCode, again.payload).toBe(409);
    expect(again.json().message).toContain(name);
    expect((await patch(first.json().agent_id, { deleted_at: 'now()', cleanup: false })).statusCode).toBe(204);
    expect((await generate({ name })).statusCode).toBe(201);
  });

  it('admin and editor generate; commander, responder and viewer get 403', async () => {
    expect((await generate({ name: uniqueName('ed') }, 'editor')).statusCode).toBe(201);
    for (const role of ['commander', 'responder', 'viewer'] as Role[]) {
      const res = await generate({ name: uniqueName(role) }, role);
      expect(res.statusCode, role).toBe(403);
    }
  });
});

describe('/api/db agents writes', () => {
  it('PATCH {properties} edits; name, last_seen, person_id and the like are refused with 400 naming the column', async () => {
    const made = (await generate({ name: uniqueName(), properties: { a: '1' } })).json();
    const ok = await patch(made.agent_id, { properties: { team: 'sre' } });
    expect(ok.statusCode, ok.payload).toBe(204);
    expect((await t.db.query('SELECT properties FROM agents WHERE id = $1', [made.agent_id])).rows[0].properties).toEqual({ team: 'sre' });
    for (const column of ['name', 'last_seen', 'person_id', 'last_received', 'username', 'created_by', 'id']) {
      const res = await patch(made.agent_id, { [column]: column === 'last_seen' || column === 'last_received' ? new Date().toISOString() : 'x' });
      expect(res.statusCode, column).toBe(400);
      expect(res.json().message, column).toContain(`'${column}'`);
    }
    const bad = await patch(made.agent_id, { properties: { n: 1 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('properties.n');
  });

  it('the local agent is 403; POST and DELETE are not allowed (generate is the way)', async () => {
    expect((await patch(LOCAL, { properties: { a: 'b' } })).statusCode).toBe(403);
    expect((await patch(LOCAL, { deleted_at: 'now()', cleanup: true })).statusCode).toBe(403);
    expect((await t.db.query('SELECT deleted_at FROM agents WHERE id = $1', [LOCAL])).rows[0].deleted_at).toBeNull();
    expect((await call('POST', '/api/db/agents', 'admin', { name: 'sneaky' })).statusCode).toBe(405);
    const made = (await generate({ name: uniqueName() })).json();
    expect((await call('DELETE', `/api/db/agents?id=eq.${made.agent_id}`)).statusCode).toBe(405);
  });

  it('admin and editor write; commander, responder and viewer read but get 403 on writes', async () => {
    const made = (await generate({ name: uniqueName() })).json();
    expect((await patch(made.agent_id, { properties: { by: 'editor' } }, 'editor')).statusCode).toBe(204);
    for (const role of ['commander', 'responder', 'viewer'] as Role[]) {
      expect((await patch(made.agent_id, { properties: { by: role } }, role)).statusCode, role).toBe(403);
      expect((await call('GET', `/api/db/agents_summary?id=eq.${made.agent_id}`, role)).statusCode, role).toBe(200);
      expect((await call('GET', `/api/db/agents?id=eq.${made.agent_id}`, role)).statusCode, role).toBe(200);
    }
    expect((await t.db.query('SELECT properties FROM agents WHERE id = $1', [made.agent_id])).rows[0].properties).toEqual({ by: 'editor' });
  });
});

/** An agent with one row in each table it can own (canary + check + status, scraper + config item, playbook run). */
async function agentWithRows(name: string) {
  const made = await generateAgent(t.db, { name, createdBy: adminId });
  const a = made.agent_id;
  const q = async (sql: string, params: unknown[]) => (await t.db.query(sql, params)).rows[0]?.id as string;
  const canary = await q(`INSERT INTO canaries (name, namespace, spec, agent_id) VALUES ($1, 'default', '{}', $2) RETURNING id`, [name, a]);
  const check = await q(`INSERT INTO checks (canary_id, type, name, agent_id) VALUES ($1, 'http', $2, $3) RETURNING id`, [canary, name, a]);
  await t.db.query(`INSERT INTO check_statuses (check_id, time, status) VALUES ($1, now(), true)`, [check]);
  const scraper = await q(`INSERT INTO config_scrapers (name, spec, agent_id) VALUES ($1, '{}', $2) RETURNING id`, [name, a]);
  const config = await q(`INSERT INTO config_items (scraper_id, config_class, type, name, agent_id) VALUES ($1, 'Node', 'Kubernetes::Node', $2, $3) RETURNING id`, [scraper, name, a]);
  const playbook = await q(`INSERT INTO playbooks (name, spec) VALUES ($1, '{}') RETURNING id`, [name]);
  await t.db.query(`INSERT INTO playbook_runs (playbook_id, status, agent_id) VALUES ($1, 'completed', $2)`, [playbook, a]);
  return { ...made, canary, check, scraper, config };
}

const deletedAt = async (table: string, id: string) => (await t.db.query(`SELECT deleted_at FROM ${table} WHERE id = $1`, [id])).rows[0].deleted_at;

describe('deleting an agent', () => {
  it('without cleanup: the agent goes, its tokens expire at once (next request 401), its rows stay', async () => {
    const ag = await agentWithRows(uniqueName('keep'));
    const bearer = { authorization: `Bearer ${ag.access_token}` };
    const before = await t.app.inject({ method: 'GET', url: '/api/db/agents_summary?limit=1', headers: bearer });
    expect(before.statusCode).not.toBe(401); // valid until deleted (200 or 403 depending on the agent-token rules)

    const res = await patch(ag.agent_id, { deleted_at: 'now()', cleanup: false });
    expect(res.statusCode, res.payload).toBe(204);
    expect(await deletedAt('agents', ag.agent_id)).not.toBeNull();
    const tok = await t.db.query('SELECT expires_at <= now() AS expired FROM access_tokens WHERE person_id = $1', [ag.id]);
    expect(tok.rows.map((r) => r.expired)).toEqual([true]);
    expect(await deletedAt('people', ag.id)).not.toBeNull();
    // the principal cache was dropped: no 5 s grace on this replica
    expect((await t.app.inject({ method: 'GET', url: '/api/db/agents_summary?limit=1', headers: bearer })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/upstream/ping', headers: bearer })).statusCode).toBe(401);
    for (const [table, id] of [['canaries', ag.canary], ['checks', ag.check], ['config_scrapers', ag.scraper], ['config_items', ag.config]]) {
      expect(await deletedAt(table, id), table).toBeNull();
    }
    // gone from the list; a second delete is 404-free no-op for the caller (nothing live matches)
    expect((await call('GET', `/api/db/agents_summary?id=eq.${ag.agent_id}`)).json()).toEqual([]);
  });

  it('with cleanup: every live row with its agent_id is soft-deleted in the same transaction; history and others stay', async () => {
    const other = await agentWithRows(uniqueName('other'));
    const ag = await agentWithRows(uniqueName('clean'));
    const res = await patch(ag.agent_id, { deleted_at: 'now()', cleanup: true });
    expect(res.statusCode, res.payload).toBe(204);
    const stamp = await deletedAt('agents', ag.agent_id);
    for (const [table, id] of [['canaries', ag.canary], ['checks', ag.check], ['config_scrapers', ag.scraper], ['config_items', ag.config]]) {
      // one transaction: the same now() as the agent's
      expect((await deletedAt(table, id) as Date)?.getTime(), table).toBe((stamp as Date).getTime());
    }
    expect((await t.db.query('SELECT count(*)::int AS n FROM check_statuses WHERE check_id = $1', [ag.check])).rows[0].n).toBe(1);
    expect((await t.db.query('SELECT cleanup FROM agents WHERE id = $1', [ag.agent_id])).rows[0].cleanup).toBe(true);
    for (const [table, id] of [['canaries', other.canary], ['checks', other.check], ['config_items', other.config]]) {
      expect(await deletedAt(table, id), table).toBeNull();
    }
  });

  it('covers every table with agent_id and deleted_at (found in the catalog, so later tables are covered too)', async () => {
    const { rows } = await t.db.query('SELECT agent_owned_tables() AS t');
    const tables = rows.map((r) => r.t);
    for (const table of ['canaries', 'checks', 'components', 'config_items', 'config_scrapers', 'topologies', 'logging_backends']) {
      expect(tables).toContain(table);
    }
    expect(tables).not.toContain('check_statuses');
  });
});

describe('agents_summary', () => {
  it('counts the agent\'s configs, scrapers, checks and playbook runs', async () => {
    const ag = await agentWithRows(uniqueName('counts'));
    const row = (await call('GET', `/api/db/agents_summary?id=eq.${ag.agent_id}`)).json()[0];
    expect(row).toMatchObject({ config_count: 1, config_scrapper_count: 1, checks_count: 1, playbook_runs_count: 1 });
  });

  it('Online while last_seen is within 61 s, Offline after (evaluated at read time), unknown before any ping', async () => {
    const made = await generateAgent(t.db, { name: uniqueName('seen'), createdBy: adminId });
    const status = async () => (await call('GET', `/api/db/agents_summary?id=eq.${made.agent_id}&select=status,health`)).json()[0];
    expect(await status()).toEqual({ status: 'unknown', health: 'unknown' });
    await t.db.query(`UPDATE agents SET last_seen = now() - interval '60 seconds' WHERE id = $1`, [made.agent_id]);
    expect(await status()).toEqual({ status: 'online', health: 'healthy' });
    await t.db.query(`UPDATE agents SET last_seen = now() - interval '62 seconds' WHERE id = $1`, [made.agent_id]);
    expect(await status()).toEqual({ status: 'offline', health: 'unhealthy' });
  });

  it('answers the reference client\'s exact list call (created_by embedded, order twice: the later wins, count=exact)', async () => {
    const names = [uniqueName('zz-list'), uniqueName('aa-list')];
    for (const name of names) await generate({ name });
    const url = '/api/db/agents_summary?select=*,created_by(id,name,avatar,email)&order=name.asc&order=created_at.desc&limit=50&offset=0';
    const res = await call('GET', url, 'admin', undefined, { prefer: 'count=exact' });
    expect(res.statusCode, res.payload).toBe(200);
    const rows = res.json() as Array<Record<string, unknown>>;
    const total = (await t.db.query('SELECT count(*)::int AS n FROM agents WHERE deleted_at IS NULL')).rows[0].n;
    expect(res.headers['content-range']).toBe(`0-${Math.min(total, 50) - 1}/${total}`);
    const times = rows.map((r) => new Date(r.created_at as string).getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const mine = rows.find((r) => r.name === names[1])!;
    expect(mine.created_by).toEqual({ id: adminId, name: expect.any(String), avatar: null, email: expect.any(String) });
    for (const key of ['config_count', 'config_scrapper_count', 'checks_count', 'playbook_runs_count', 'status', 'last_seen', 'last_received']) {
      expect(mine).toHaveProperty(key);
    }
    const byName = await call('GET', url.replace('&order=created_at.desc', ''), 'admin');
    const listed = (byName.json() as Array<{ name: string }>).map((r) => r.name);
    expect(listed).toEqual([...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });
});

describe('live agents events over /api/ws', () => {
  it('a viewer hears generate, edit, delete and an agent\'s ping as agents changes with the agent id', async () => {
    const viewer = await makePerson(t.db, { roles: ['viewer'] });
    const live = await connectLive(await listen(t.app), await bearerHeaders(t.db, viewer.id));
    const heard = (id: string) => live.messages.filter((m) => m.type === 'change' && m.relation === 'agents' && m.ids?.includes(id)).length;
    try {
      const made = (await generate({ name: uniqueName('live') })).json();
      await until(async () => heard(made.agent_id) >= 1, 'the generate event');
      // the agent's first ping: last_seen changed, the list re-reads (throttled per agent, the first goes at once)
      await t.app.inject({ method: 'GET', url: '/api/upstream/ping', headers: { authorization: `Bearer ${made.access_token}` } });
      await patch(made.agent_id, { properties: { x: 'y' } });
      await patch(made.agent_id, { deleted_at: 'now()' });
      await until(async () => heard(made.agent_id) >= 3, 'edit and delete events');
    } finally {
      live.close();
    }
  });
});

describe('agents.disable', () => {
  it('refuses the agents routes and relations with 403 while set', async () => {
    const made = (await generate({ name: uniqueName('gate') })).json();
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('agents.disable', 'true')`);
    try {
      expect((await generate({ name: uniqueName('gated') })).statusCode).toBe(403);
      expect((await call('GET', '/api/db/agents_summary?limit=1')).statusCode).toBe(403);
      expect((await call('GET', '/api/db/agents?limit=1')).statusCode).toBe(403);
      expect((await patch(made.agent_id, { properties: { a: 'b' } })).statusCode).toBe(403);
      // agents keep pushing: /api/upstream is not gated (its own auth answers, never the feature's 403)
      const ping = await t.app.inject({ method: 'GET', url: '/api/upstream/ping', headers: { authorization: `Bearer ${made.access_token}` } });
      expect(ping.payload).not.toContain('agents is disabled');
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'agents.disable'`);
    }
    expect((await call('GET', '/api/db/agents_summary?limit=1')).statusCode).toBe(200);
  });
});
