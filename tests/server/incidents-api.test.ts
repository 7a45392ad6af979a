import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// The incident calls of spec 000 §7, sent as written (URLs, embeds, Prefer headers), through /api/db as the web
// sends them: the creation sequence, the list and its filters, the detail with its embeds, hypotheses, evidences,
// comments, responders, the timeline, the summary views and the RPCs that do a sequence in one transaction.

let t: TestContext;
let commander: { id: string; headers: Record<string, string> };
let responder: { id: string; headers: Record<string, string> };
let checkId: string;

const json = { 'content-type': 'application/json' };
type Who = { headers: Record<string, string> };
const call = (who: Who, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method, url: `/api/db/${url}`, headers: { ...who.headers, ...(payload === undefined ? {} : json), ...headers },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });
const body = <T = any>(res: { payload: string }) => JSON.parse(res.payload) as T; // eslint-disable-line @typescript-eslint/no-explicit-any

async function person(roles: ('commander' | 'responder' | 'viewer')[], first: string) {
  const p = await makePerson(t.db, { roles: roles.filter((r) => r !== 'viewer'), first, last: 'Tester' });
  return { id: p.id, headers: await sessionHeaders(t.db, p.id) };
}

/** The spec's creation sequence: incident, root hypothesis (type root, status possible), optional evidence. */
async function createSequence(who: Who & { id: string }, title: string, evidence?: Record<string, unknown>) {
  const inc = await call(who, 'POST', 'incidents?select=*', {
    title, type: 'availability', severity: 'low', description: 'from the test', status: 'open',
    created_by: who.id, commander_id: who.id, communicator_id: null,
  }, { prefer: 'return=representation' });
  expect(inc.statusCode, inc.payload).toBe(201);
  const incident = body(inc)[0];
  const hyp = await call(who, 'POST', 'hypotheses?select=*', {
    incident_id: incident.id, title, type: 'root', status: 'possible', created_by: who.id,
  }, { prefer: 'return=representation' });
  expect(hyp.statusCode, hyp.payload).toBe(201);
  const hypothesis = body(hyp)[0];
  let ev = null;
  if (evidence) {
    const res = await call(who, 'POST', 'evidences?select=*', { hypothesis_id: hypothesis.id, created_by: who.id, ...evidence },
      { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    ev = body(res)[0];
  }
  return { incident, hypothesis, evidence: ev };
}

beforeAll(async () => {
  t = await createTestApp();
  commander = await person(['commander'], 'Cora');
  responder = await person(['responder'], 'Rex');
  const canary = await t.db.query(`INSERT INTO canaries (name, namespace, spec) VALUES ('web', 'default', '{}') RETURNING id`);
  checkId = (await t.db.query(
    `INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'web-home', 'unhealthy') RETURNING id`,
    [canary.rows[0].id])).rows[0].id;
  // topology evidence points at real components now that evidences.component_id has its FK (0060_topology.sql)
  await t.db.query(`INSERT INTO components (id, name, external_id) VALUES ('0190f0a0-0000-4000-8000-000000000001', 'payments-api', 'payments-api'),
    ('0190f0a0-0000-4000-8000-0000000000aa', 'api', 'api')`);
});
afterAll(() => t.close());

describe('creating an incident (spec §7 creation sequence)', () => {
  it('POST incidents?select=* with return=representation answers the row: INC-n id, defaults, the caller as creator', async () => {
    const res = await call(commander, 'POST', 'incidents?select=*', { title: 'Disk full on db-1' }, { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    const [row] = body(res);
    expect(row).toMatchObject({ title: 'Disk full on db-1', status: 'open', type: 'availability', severity: 'low', description: '' });
    expect(row.incident_id).toMatch(/^INC-\d+$/);
    expect(row.created_by).toBe(commander.id);
    const next = body((await call(commander, 'POST', 'incidents?select=incident_id', { title: 'Second' }, { prefer: 'return=representation' })))[0];
    expect(Number(next.incident_id.slice(4))).toBe(Number(row.incident_id.slice(4)) + 1);
  });

  it('takes the created_by of the session, not of the body', async () => {
    const res = await call(responder, 'POST', 'incidents?select=created_by', { title: 'Spoofed', created_by: commander.id },
      { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    expect(body(res)[0].created_by).toBe(responder.id);
  });

  it('incident, then root hypothesis, then evidence (config or topology) as separate POSTs', async () => {
    const { incident, hypothesis, evidence } = await createSequence(commander, 'Payments slow', {
      type: 'topology', description: 'payments-api component', component_id: '0190f0a0-0000-4000-8000-000000000001',
      evidence: { id: '0190f0a0-0000-4000-8000-000000000001' },
    });
    expect(hypothesis).toMatchObject({ incident_id: incident.id, type: 'root', status: 'possible', parent_id: null });
    expect(evidence).toMatchObject({ hypothesis_id: hypothesis.id, type: 'topology', definition_of_done: false });
  });

  it('POST /rpc/create_incident does the sequence in one transaction and answers all three rows', async () => {
    const res = await call(commander, 'POST', 'rpc/create_incident', {
      title: 'Check web-home failing', severity: 'high', type: 'availability',
      evidence: { type: 'check', description: 'web-home unhealthy', check_id: checkId },
    });
    expect(res.statusCode, res.payload).toBe(200);
    const out = body(res);
    expect(out.incident).toMatchObject({ title: 'Check web-home failing', severity: 'high', created_by: commander.id });
    expect(out.hypothesis).toMatchObject({ incident_id: out.incident.id, type: 'root', status: 'possible', title: 'Check web-home failing' });
    expect(out.evidence).toMatchObject({ hypothesis_id: out.hypothesis.id, check_id: checkId, type: 'check' });
  });

  it('a bad evidence in the RPC leaves no incident behind', async () => {
    const before = (await t.db.query('SELECT count(*)::int AS n FROM incidents')).rows[0].n;
    const res = await call(commander, 'POST', 'rpc/create_incident', { title: 'Half made', evidence: { type: 'hunch' } });
    expect(res.statusCode).toBe(400);
    expect(body(res).message).toBe("Invalid evidence type 'hunch'");
    expect((await t.db.query('SELECT count(*)::int AS n FROM incidents')).rows[0].n).toBe(before);
  });
});

describe('Link to Incident and attach as evidence (spec §2)', () => {
  it('POST evidences with check_id attaches a check to an existing hypothesis', async () => {
    const { hypothesis } = await createSequence(commander, 'Attach target');
    const res = await call(responder, 'POST', 'evidences?select=*,checks(id,name)', {
      hypothesis_id: hypothesis.id, type: 'check', description: 'web-home', check_id: checkId, evidence: { id: checkId },
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    expect(body(res)[0]).toMatchObject({ check_id: checkId, created_by: responder.id, checks: { id: checkId, name: 'web-home' } });
  });

  it('rpc/link_to_incident without a hypothesis creates a root one titled like the incident', async () => {
    const { incident } = await createSequence(commander, 'Linked incident');
    const res = await call(responder, 'POST', 'rpc/link_to_incident', {
      incident_id: incident.id, evidence: { type: 'check', description: 'web-home', check_id: checkId },
    });
    expect(res.statusCode, res.payload).toBe(200);
    const out = body(res);
    expect(out.hypothesis).toMatchObject({ incident_id: incident.id, type: 'root', title: 'Linked incident' });
    expect(out.evidence).toMatchObject({ hypothesis_id: out.hypothesis.id, check_id: checkId });
    const byCheck = body(await call(commander, 'GET', `incidents_by_check?check_id=eq.${checkId}&select=id,incident_id,title`));
    expect(byCheck.map((r: { id: string }) => r.id)).toContain(incident.id);
  });

  it('rpc/link_to_incident refuses a hypothesis of another incident', async () => {
    const a = await createSequence(commander, 'A');
    const b = await createSequence(commander, 'B');
    const res = await call(commander, 'POST', 'rpc/link_to_incident', {
      incident_id: a.incident.id, hypothesis_id: b.hypothesis.id, evidence: { type: 'log', description: 'x' },
    });
    expect(res.statusCode).toBe(400);
    expect(body(res).message).toBe('Must select or create a hypothesis');
  });
});

describe('reading (spec §7)', () => {
  let ids: { incident: string; root: string; factor: string; evidence: string };
  beforeAll(async () => {
    // config evidence points at a real catalog item (evidences_config_id_fkey)
    await t.db.query(
      `INSERT INTO config_items (id, config_class, type, name) VALUES ('0190f0a0-0000-4000-8000-0000000000c1', 'Ingress', 'Kubernetes::Ingress', 'web')
       ON CONFLICT (id) DO NOTHING`);
    const { incident, hypothesis, evidence } = await createSequence(commander, 'Ingress 502s', {
      type: 'config', description: 'ingress config', config_id: '0190f0a0-0000-4000-8000-0000000000c1',
    });
    const factor = body(await call(commander, 'POST', 'hypotheses?select=*', {
      incident_id: incident.id, parent_id: hypothesis.id, title: 'Bad rollout', type: 'factor', status: 'likely', created_by: commander.id,
    }, { prefer: 'return=representation' }))[0];
    await call(responder, 'POST', 'comments', { created_by: responder.id, incident_id: incident.id, hypothesis_id: factor.id, comment: 'Rolled back' });
    await call(commander, 'POST', 'responders?select=*', {
      incident_id: incident.id, created_by: commander.id, person_id: responder.id, type: 'person', properties: { responderType: 'person' },
    }, { prefer: 'return=representation' });
    ids = { incident: incident.id, root: hypothesis.id, factor: factor.id, evidence: evidence.id };
  });

  it('GET incidents with the reference detail embeds', async () => {
    const hypotheses = 'hypotheses!hypotheses_incident_id_fkey(*,created_by(id,name,avatar),evidences(id,evidence,type,script,script_result),comments(comment,external_created_by,created_by(id,name,avatar),responder_id(created_by,type,team_id(id,name,icon,spec))))';
    const comments = 'comments!comments_incident_id_fkey(id,created_by(id,name,avatar))';
    const url = `incidents?select=*,${hypotheses},${comments},commander_id(id,name,avatar),communicator_id(id,name,avatar),responders(created_by(id,name,avatar))&id=eq.${ids.incident}`;
    const res = await call(commander, 'GET', url);
    expect(res.statusCode, res.payload).toBe(200);
    const [inc] = body(res);
    expect(inc.commander_id).toMatchObject({ id: commander.id, name: 'Cora Tester' });
    expect(inc.communicator_id).toBeNull();
    expect(inc.hypotheses).toHaveLength(2);
    const factor = inc.hypotheses.find((h: { id: string }) => h.id === ids.factor);
    expect(factor.comments).toEqual([expect.objectContaining({ comment: 'Rolled back', created_by: expect.objectContaining({ id: responder.id }) })]);
    const root = inc.hypotheses.find((h: { id: string }) => h.id === ids.root);
    expect(root.evidences).toEqual([expect.objectContaining({ id: ids.evidence, type: 'config' })]);
    expect(inc.responders).toEqual([{ created_by: expect.objectContaining({ id: commander.id }) }]);
    expect(inc.comments).toHaveLength(1);
  });

  it('GET incidents with aliased commander, title search, the list filters and Prefer: count=exact', async () => {
    const res = await call(commander, 'GET',
      'incidents?select=id,incident_id,title,commander:commander_id(id,name,avatar)&title=ilike.*ingress*&severity=eq.low&status=eq.open&type=eq.availability'
      + `&created_by=eq.${commander.id}&order=created_at.desc&limit=10&offset=0`, undefined, { prefer: 'count=exact' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.headers['content-range']).toBe('0-0/1');
    expect(body(res)).toEqual([expect.objectContaining({ id: ids.incident, commander: expect.objectContaining({ id: commander.id }) })]);
  });

  it('filters by component through hypotheses.evidences.component_id with !inner', async () => {
    const { incident } = await createSequence(commander, 'Component scoped', {
      type: 'topology', description: 'api', component_id: '0190f0a0-0000-4000-8000-0000000000aa',
    });
    const res = await call(commander, 'GET',
      'incidents?select=id,hypotheses!inner(id,evidences!inner(id,component_id))&hypotheses.evidences.component_id=eq.0190f0a0-0000-4000-8000-0000000000aa');
    expect(res.statusCode, res.payload).toBe(200);
    expect(body(res).map((r: { id: string }) => r.id)).toEqual([incident.id]);
    const byComponent = body(await call(commander, 'GET', 'incidents_by_component?component_id=eq.0190f0a0-0000-4000-8000-0000000000aa'));
    expect(byComponent).toEqual([expect.objectContaining({ id: incident.id, title: 'Component scoped', status: 'open' })]);
  });

  it('GET incident_summary: commander, responders and commenters as JSON', async () => {
    const res = await call(commander, 'GET', `incident_summary?id=eq.${ids.incident}`, undefined, { prefer: 'count=exact' });
    expect(res.statusCode, res.payload).toBe(200);
    const [row] = body(res);
    expect(row).toMatchObject({
      id: ids.incident, title: 'Ingress 502s', status: 'open', severity: 'low', type: 'availability',
      commander: { id: commander.id, name: 'Cora Tester', avatar: null },
      responders: [{ id: responder.id, name: 'Rex Tester', avatar: null, type: 'person' }],
      commenters: [{ id: responder.id, name: 'Rex Tester', avatar: null }],
    });
    expect(row.incident_id).toMatch(/^INC-/);
  });

  it('GET incidents_by_config', async () => {
    const res = await call(commander, 'GET', 'incidents_by_config?config_id=eq.0190f0a0-0000-4000-8000-0000000000c1&select=id,title,config_id');
    expect(body(res)).toEqual([{ id: ids.incident, title: 'Ingress 502s', config_id: '0190f0a0-0000-4000-8000-0000000000c1' }]);
  });

  it('GET incident_histories with the reference changelog embeds', async () => {
    const url = `incident_histories?incident_id=eq.${ids.incident}&order=created_at.asc&select=*,evidence:evidences(id,description,type,checks(id,icon,name)),hypothesis:hypotheses(id,title),responder:responders(id,person:person_id(id,name,avatar),team:team_id(id,name,icon)),comment:comments(id,comment),created_by(id,name,avatar)`;
    const res = await call(responder, 'GET', url);
    expect(res.statusCode, res.payload).toBe(200);
    const rows = body(res);
    expect(rows.map((r: { type: string }) => r.type)).toEqual([
      'incident.created', 'hypothesis.created', 'evidence.created', 'hypothesis.created', 'responder.commented', 'responder.created',
    ]);
    expect(rows[2].evidence).toMatchObject({ id: ids.evidence, type: 'config', checks: null });
    expect(rows[3].hypothesis).toEqual({ id: ids.factor, title: 'Bad rollout' });
    expect(rows[4].comment).toMatchObject({ comment: 'Rolled back' });
    expect(rows[4].created_by).toMatchObject({ id: responder.id });
    expect(rows[5].responder).toMatchObject({ person: { id: responder.id, name: 'Rex Tester', avatar: null }, team: null });
  });
});

describe('writing hypotheses, evidences and comments (spec §7)', () => {
  it('PATCH hypotheses (title, status), PATCH evidences (definition_of_done, done, script), DELETE evidences', async () => {
    const { incident, hypothesis, evidence } = await createSequence(commander, 'Edit me', { type: 'log', description: 'logs' });
    let res = await call(responder, 'PATCH', `hypotheses?id=eq.${hypothesis.id}`, { title: 'Edited', status: 'disproven' });
    expect(res.statusCode, res.payload).toBe(204);
    res = await call(responder, 'PATCH', `evidences?id=in.(${evidence.id})`, { definition_of_done: true, script: 'exit 0', done: false });
    expect(res.statusCode, res.payload).toBe(204);
    const row = (await t.db.query('SELECT definition_of_done, script, done FROM evidences WHERE id = $1', [evidence.id])).rows[0];
    expect(row).toEqual({ definition_of_done: true, script: 'exit 0', done: false });
    res = await call(responder, 'DELETE', `evidences?id=eq.${evidence.id}`);
    expect(res.statusCode).toBe(204);
    const hist = await t.db.query('SELECT type, evidence_id FROM incident_histories WHERE incident_id = $1 ORDER BY created_at', [incident.id]);
    // entries outlive the evidence they mention
    expect(hist.rows.filter((r) => r.type.startsWith('evidence.'))).toEqual([
      { type: 'evidence.created', evidence_id: null }, { type: 'evidence.done_definition_added', evidence_id: null },
    ]);
  });

  it('POST evidences with the fields of spec §7 (client id, evidence payload, definition of done, script, done)', async () => {
    const { hypothesis } = await createSequence(commander, 'Evidence fields');
    const id = '0190f0a0-0000-4000-8000-00000000e001';
    const payload = {
      id, hypothesis_id: hypothesis.id, type: 'log', description: 'selected lines', definition_of_done: true, script: 'true', done: false,
      evidence: { lines: [{ message: 'a' }, { message: 'b' }], selected_lines: { 1: true }, start: '1h', includeMessages: true },
    };
    const res = await call(responder, 'POST', 'evidences?select=*', payload, { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    expect(body(res)[0]).toMatchObject({ ...payload, created_by: responder.id });
  });

  it('POST /comments and DELETE comments by hypothesis', async () => {
    const { incident, hypothesis } = await createSequence(commander, 'Comments');
    const mention = `@[Cora Tester](user:${commander.id}) have a look`;
    let res = await call(responder, 'POST', 'comments?select=*', {
      created_by: responder.id, incident_id: incident.id, hypothesis_id: hypothesis.id, comment: mention,
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    expect(body(res)[0]).toMatchObject({ comment: mention, created_by: responder.id });
    res = await call(responder, 'DELETE', `comments?hypothesis_id=eq.${hypothesis.id}`);
    expect(res.statusCode).toBe(204);
    expect((await t.db.query('SELECT count(*)::int AS n FROM comments WHERE hypothesis_id = $1', [hypothesis.id])).rows[0].n).toBe(0);
  });

  it('PATCH incidents?id=eq with severity and type', async () => {
    const { incident } = await createSequence(commander, 'Retype');
    const res = await call(commander, 'PATCH', `incidents?id=eq.${incident.id}`, { severity: 'critical', type: 'security' },
      { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(body(res)[0]).toMatchObject({ severity: 'critical', type: 'security' });
  });
});

describe('responders (spec §7)', () => {
  let incident: string;
  let teamId: string;
  beforeAll(async () => {
    incident = (await createSequence(commander, 'Needs people')).incident.id;
    teamId = (await t.db.query(
      `INSERT INTO teams (name, icon, spec, created_by) VALUES ('SRE', 'k8s', $1, $2) RETURNING id`,
      [{ responder_clients: { jira: { values: { project: 'OPS' } } } }, commander.id])).rows[0].id;
  });

  it('POST /responders?select=* then GET with team(...) and person(...) embeds, not deleted, then soft delete', async () => {
    let res = await call(commander, 'POST', 'responders?select=*', {
      incident_id: incident, created_by: commander.id, person_id: responder.id, type: 'person', properties: { responderType: 'person' },
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    const person = body(res)[0];
    expect(person).toMatchObject({ type: 'person', person_id: responder.id, deleted_at: null, delivery_status: 'none' });
    res = await call(commander, 'POST', 'responders?select=*', {
      incident_id: incident, created_by: commander.id, team_id: teamId, type: 'system',
      properties: { responderType: 'jira', project: 'OPS', issueType: 'Bug', summary: 'Look', description: 'Please', priority: 'High' },
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    const team = body(res)[0];

    res = await call(commander, 'GET', `responders?incident_id=eq.${incident}&select=*,team(id,name,icon,spec),person(id,name,avatar)&deleted_at=is.null&order=created_at.asc`);
    expect(res.statusCode, res.payload).toBe(200);
    expect(body(res)).toEqual([
      expect.objectContaining({ id: person.id, person: { id: responder.id, name: 'Rex Tester', avatar: null }, team: null }),
      expect.objectContaining({ id: team.id, person: null, team: expect.objectContaining({ id: teamId, name: 'SRE', icon: 'k8s' }) }),
    ]);

    res = await call(commander, 'PATCH', `responders?id=eq.${person.id}`, { deleted_at: new Date().toISOString() });
    expect(res.statusCode, res.payload).toBe(204);
    res = await call(commander, 'GET', `responders?incident_id=eq.${incident}&select=id&deleted_at=is.null`);
    expect(body(res)).toEqual([{ id: team.id }]);
    // a responder is soft deleted only
    res = await call(commander, 'DELETE', `responders?id=eq.${team.id}`);
    expect(res.statusCode).toBe(405);
  });

  it('a jira responder is recorded (the request stays in properties)', async () => {
    const res = await call(commander, 'POST', 'responders?select=id', {
      incident_id: incident, team_id: teamId, type: 'system',
      properties: { responderType: 'jira', project: 'OPS', issueType: 'Task', summary: 's', description: 'd', priority: 'Low' },
    }, { prefer: 'return=representation' });
    expect(res.statusCode, res.payload).toBe(201);
    const id = body(res)[0].id;
    let status = '';
    for (let i = 0; i < 100 && status !== 'recorded'; i++) {
      status = (await t.db.query('SELECT delivery_status FROM responders WHERE id = $1', [id])).rows[0].delivery_status;
      if (status !== 'recorded') await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe('recorded');
  });
});
