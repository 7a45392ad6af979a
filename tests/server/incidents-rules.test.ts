import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncidentStatus, STATUS_TRANSITIONS, TimelineEvent } from '../../server/contracts/incidents.js';
import type { LiveMessage } from '../../server/contracts/events.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// The rules the server enforces whatever the client does: the status transition table, enums and required fields
// (a 400 with a clear message, nothing written), the hypothesis hierarchy, the delete cascade, the timeline written
// by the server with the acting person, the roles of spec §6, and the live events the web invalidates on.

let t: TestContext;
type Who = { id: string; headers: Record<string, string> };
let commander: Who;
let responder: Who;
let viewer: Who;
let editor: Who;

const json = { 'content-type': 'application/json' };
const call = (who: Who, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method, url: `/api/db/${url}`, headers: { ...who.headers, ...(payload === undefined ? {} : json), ...headers },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });
const body = <T = any>(res: { payload: string }) => JSON.parse(res.payload) as T; // eslint-disable-line @typescript-eslint/no-explicit-any
const rep = { prefer: 'return=representation' };

async function person(roles: ('commander' | 'responder' | 'editor')[], first: string): Promise<Who> {
  const p = await makePerson(t.db, { roles, first, last: 'Rules' });
  return { id: p.id, headers: await sessionHeaders(t.db, p.id) };
}

async function newIncident(status = 'open', title = 'Rules incident') {
  const { rows } = await t.db.query(
    `INSERT INTO incidents (title, status, created_by) VALUES ($1, $2, $3) RETURNING id`, [title, status, commander.id]);
  return rows[0].id as string;
}
async function newHypothesis(incident: string, type = 'root', parent: string | null = null) {
  const { rows } = await t.db.query(
    `INSERT INTO hypotheses (incident_id, parent_id, type, title, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [incident, parent, type, `${type} hypothesis`, commander.id]);
  return rows[0].id as string;
}
const countAll = async () => (await t.db.query(
  `SELECT (SELECT count(*) FROM incidents)::int AS incidents, (SELECT count(*) FROM hypotheses)::int AS hypotheses,
          (SELECT count(*) FROM evidences)::int AS evidences, (SELECT count(*) FROM comments)::int AS comments,
          (SELECT count(*) FROM responders)::int AS responders, (SELECT count(*) FROM incident_histories)::int AS histories`)).rows[0];

beforeAll(async () => {
  t = await createTestApp();
  commander = await person(['commander'], 'Cmd');
  responder = await person(['responder'], 'Resp');
  viewer = await person([], 'View');
  editor = await person(['editor'], 'Edit');
});
afterAll(() => t.close());

describe('status transitions (spec §4 table)', () => {
  const pairs = IncidentStatus.options.flatMap((from) => IncidentStatus.options.map((to) => [from, to] as const));

  it.each(pairs)('%s → %s', async (from, to) => {
    const id = await newIncident(from);
    const res = await call(commander, 'PATCH', `incidents?id=eq.${id}`, { status: to });
    const status = (await t.db.query('SELECT status FROM incidents WHERE id = $1', [id])).rows[0].status;
    if (STATUS_TRANSITIONS[from].includes(to)) {
      expect(res.statusCode, res.payload).toBe(204);
      expect(status).toBe(to);
    } else {
      expect(res.statusCode).toBe(400);
      expect(body(res)).toMatchObject({
        code: 'P0001',
        message: `Incident status cannot change from ${from} to ${to}`,
        details: `Allowed from ${from}: ${STATUS_TRANSITIONS[from].join(', ')}`,
      });
      expect(status).toBe(from);
    }
  });

  it('the Close / Reopen toggle works from every open state and back', async () => {
    for (const from of ['open', 'investigating', 'mitigated', 'resolved'] as const) {
      const id = await newIncident(from);
      expect((await call(commander, 'PATCH', `incidents?id=eq.${id}`, { status: 'closed' })).statusCode).toBe(204);
      const closed = (await t.db.query('SELECT closed, resolved FROM incidents WHERE id = $1', [id])).rows[0];
      expect(closed.closed).not.toBeNull();
      expect((await call(commander, 'PATCH', `incidents?id=eq.${id}`, { status: 'open' })).statusCode).toBe(204);
      expect((await t.db.query('SELECT closed FROM incidents WHERE id = $1', [id])).rows[0].closed).toBeNull();
    }
  });
});

describe('bad input: a clear 400 and nothing written', () => {
  const cases: [string, string, unknown, string][] = [
    ['missing title', 'incidents', { severity: 'low' }, 'Incident title is required'],
    ['blank title', 'incidents', { title: '   ' }, 'Incident title is required'],
    ['invalid severity', 'incidents', { title: 'x', severity: 'urgent' }, "Invalid incident severity 'urgent'"],
    ['unknown status', 'incidents', { title: 'x', status: 'paused' }, "Invalid incident status 'paused'"],
    ['unknown type', 'incidents', { title: 'x', type: 'vibes' }, "Invalid incident type 'vibes'"],
  ];
  it.each(cases)('POST incidents with %s', async (_name, relation, payload, message) => {
    const before = await countAll();
    const res = await call(commander, 'POST', relation, payload);
    expect(res.statusCode, res.payload).toBe(400);
    expect(body(res).message).toBe(message);
    expect(await countAll()).toEqual(before);
  });

  it('an unknown column is refused before anything runs', async () => {
    const res = await call(commander, 'POST', 'incidents', { title: 'x', priority: 'P1' });
    expect(res.statusCode).toBe(400);
    expect(body(res).code).toBe('PGRST204');
  });

  it('PATCH with an invalid severity changes nothing', async () => {
    const id = await newIncident();
    const res = await call(commander, 'PATCH', `incidents?id=eq.${id}`, { severity: 'sev0', type: 'security' });
    expect(res.statusCode).toBe(400);
    expect((await t.db.query('SELECT severity, type FROM incidents WHERE id = $1', [id])).rows[0]).toEqual({ severity: 'low', type: 'availability' });
  });

  it('the server-maintained columns cannot be written', async () => {
    const id = await newIncident();
    for (const patch of [{ incident_id: 'INC-999' }, { created_by: viewer.id }, { closed: new Date().toISOString() }]) {
      const res = await call(commander, 'PATCH', `incidents?id=eq.${id}`, patch);
      expect(res.statusCode).toBe(400);
    }
  });

  it('severity accepts a name in any case and the numeric codes', async () => {
    const a = body(await call(commander, 'POST', 'incidents?select=severity', { title: 'a', severity: 'High' }, rep))[0];
    const b = body(await call(commander, 'POST', 'incidents?select=severity', { title: 'b', severity: '4' }, rep))[0];
    expect([a.severity, b.severity]).toEqual(['high', 'critical']);
  });

  it('hypotheses, evidences, comments and responders refuse missing or unknown values', async () => {
    const incident = await newIncident();
    const root = await newHypothesis(incident);
    const teamId = (await t.db.query(
      `INSERT INTO teams (name, spec, created_by) VALUES ('T', $1, $2) RETURNING id`,
      [{ responder_clients: { email: {} } }, commander.id])).rows[0].id;
    const before = await countAll();
    const refused: [string, unknown, string][] = [
      ['hypotheses', { incident_id: incident, type: 'root', status: 'possible' }, 'Hypothesis title is required'],
      ['hypotheses', { incident_id: incident, title: 'x', type: 'root', status: 'maybe' }, "Invalid hypothesis status 'maybe'"],
      ['hypotheses', { incident_id: incident, title: 'x', type: 'guess' }, "Invalid hypothesis type 'guess'"],
      ['evidences', { hypothesis_id: root, type: 'rumour' }, "Invalid evidence type 'rumour'"],
      ['evidences', { hypothesis_id: root, type: 'check' }, 'Check evidence needs check_id'],
      ['comments', { incident_id: incident, hypothesis_id: root, comment: '  ' }, 'Please add comment details'],
      ['responders', { incident_id: incident, type: 'system', team_id: teamId, properties: { responderType: 'email', to: 'a@b.c' } }, 'Please provide valid value'],
      ['responders', { incident_id: incident, type: 'system', team_id: teamId, properties: { responderType: 'email', to: 'nope', subject: 's', body: 'b' } }, 'Please provide valid value'],
      ['responders', { incident_id: incident, type: 'system', team_id: teamId, properties: { responderType: 'jira', project: 'P' } }, 'Response type jira is not configured for this team'],
      ['responders', { incident_id: incident, type: 'person', team_id: teamId, person_id: responder.id }, 'A responder is either a team or a person: set exactly one of team_id and person_id'],
      ['responders', { incident_id: incident, type: 'team', team_id: teamId }, "Invalid responder type 'team'"],
    ];
    for (const [relation, payload, message] of refused) {
      const res = await call(commander, 'POST', relation, payload);
      expect(res.statusCode, `${relation} ${JSON.stringify(payload)}: ${res.payload}`).toBe(400);
      expect(body(res).message).toBe(message);
    }
    const missing = await call(commander, 'POST', 'responders', {
      incident_id: incident, type: 'system', team_id: teamId, properties: { responderType: 'email', to: 'a@b.c' },
    });
    expect(body(missing).details).toBe('Required for email: subject, body');
    expect(await countAll()).toEqual(before);
  });
});

describe('hypothesis hierarchy: root → factor → solution', () => {
  it('accepts the tree and refuses every other shape', async () => {
    const incident = await newIncident();
    const other = await newIncident();
    const root = await newHypothesis(incident);
    const post = (payload: Record<string, unknown>) => call(responder, 'POST', 'hypotheses?select=id', { incident_id: incident, title: 'h', ...payload }, rep);
    const factor = await post({ type: 'factor', parent_id: root });
    expect(factor.statusCode, factor.payload).toBe(201);
    const factorId = body(factor)[0].id;
    expect((await post({ type: 'solution', parent_id: factorId })).statusCode).toBe(201);

    const refused: [Record<string, unknown>, string][] = [
      [{ type: 'root', parent_id: root }, 'A root hypothesis cannot have a parent'],
      [{ type: 'factor' }, 'A factor hypothesis needs a parent (parent_id)'],
      [{ type: 'factor', parent_id: factorId }, 'A factor must be under a root hypothesis, not a factor'],
      [{ type: 'solution', parent_id: root }, 'A solution must be under a factor, not a root'],
      [{ type: 'factor', parent_id: await newHypothesis(other) }, 'The parent hypothesis belongs to another incident'],
    ];
    for (const [payload, message] of refused) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      expect(body(res).message).toBe(message);
    }
  });

  it('new hypotheses default to status possible', async () => {
    const incident = await newIncident();
    const res = await call(responder, 'POST', 'hypotheses?select=status', { incident_id: incident, title: 'h', type: 'root' }, rep);
    expect(body(res)[0].status).toBe('possible');
  });
});

describe('deleting a hypothesis removes its comments and evidences', () => {
  async function tree() {
    const incident = await newIncident();
    const root = await newHypothesis(incident);
    const factor = await newHypothesis(incident, 'factor', root);
    const solution = await newHypothesis(incident, 'solution', factor);
    for (const h of [root, factor, solution]) {
      await t.db.query(`INSERT INTO evidences (hypothesis_id, type, description, created_by) VALUES ($1, 'log', 'l', $2)`, [h, commander.id]);
      await t.db.query(`INSERT INTO comments (incident_id, hypothesis_id, comment, created_by) VALUES ($1, $2, 'c', $3)`, [incident, h, commander.id]);
    }
    return { incident, root, factor, solution };
  }
  const left = async (incident: string) => (await t.db.query(
    `SELECT (SELECT count(*) FROM hypotheses WHERE incident_id = $1)::int AS hypotheses,
            (SELECT count(*) FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id WHERE h.incident_id = $1)::int AS evidences,
            (SELECT count(*) FROM comments WHERE incident_id = $1)::int AS comments,
            (SELECT count(*) FROM incident_histories WHERE incident_id = $1)::int AS histories`, [incident])).rows[0];

  it('DELETE hypotheses?id=eq. takes the subtree with its evidences and comments; the timeline stays', async () => {
    const { incident, factor } = await tree();
    const before = await left(incident);
    const res = await call(responder, 'DELETE', `hypotheses?id=eq.${factor}`);
    expect(res.statusCode, res.payload).toBe(204);
    expect(await left(incident)).toEqual({ hypotheses: 1, evidences: 1, comments: 1, histories: before.histories });
  });

  it('POST /rpc/delete_hypothesis does the same in one call, and 400s on an unknown id', async () => {
    const { incident, root } = await tree();
    const res = await call(responder, 'POST', 'rpc/delete_hypothesis', { id: root });
    expect(res.statusCode, res.payload).toBe(200);
    expect(body(res)).toBe(3);
    expect(await left(incident)).toMatchObject({ hypotheses: 0, evidences: 0, comments: 0 });
    const gone = await call(responder, 'POST', 'rpc/delete_hypothesis', { id: root });
    expect(gone.statusCode).toBe(400);
    expect(body(gone).message).toBe(`Hypothesis ${root} not found`);
  });

  it('the web sequence (comments, then evidences, then hypotheses) works too', async () => {
    const { incident, root, factor, solution } = await tree();
    const list = `in.(${[root, factor, solution].join(',')})`;
    expect((await call(responder, 'DELETE', `comments?hypothesis_id=${list}`)).statusCode).toBe(204);
    expect((await call(responder, 'DELETE', `evidences?hypothesis_id=${list}`)).statusCode).toBe(204);
    for (const id of [solution, factor, root]) expect((await call(responder, 'DELETE', `hypotheses?id=eq.${id}`)).statusCode).toBe(204);
    expect(await left(incident)).toMatchObject({ hypotheses: 0, evidences: 0, comments: 0 });
  });
});

describe('what evidence points at', () => {
  it('deleting a check keeps its evidence (check_id becomes null) and the timeline', async () => {
    const inc = await newIncident();
    const root = await newHypothesis(inc);
    const canary = (await t.db.query(`INSERT INTO canaries (name, namespace, spec) VALUES ('gone', 'default', '{}') RETURNING id`)).rows[0].id;
    const check = (await t.db.query(`INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'gone') RETURNING id`, [canary])).rows[0].id;
    const ev = body(await call(responder, 'POST', 'evidences?select=id', { hypothesis_id: root, type: 'check', check_id: check }, rep))[0].id;
    await t.db.query('DELETE FROM canaries WHERE id = $1', [canary]);
    expect((await t.db.query('SELECT type, check_id FROM evidences WHERE id = $1', [ev])).rows[0]).toEqual({ type: 'check', check_id: null });
  });
});

describe('responder progress', () => {
  it('a person responder is acknowledged by their comment; all are resolved, then closed, with the incident', async () => {
    const inc = await newIncident();
    const root = await newHypothesis(inc);
    const person = body(await call(commander, 'POST', 'responders?select=id', { incident_id: inc, type: 'person', person_id: responder.id }, rep))[0].id;
    const other = body(await call(commander, 'POST', 'responders?select=id', { incident_id: inc, type: 'person', person_id: viewer.id }, rep))[0].id;
    const times = async (id: string) => (await t.db.query('SELECT acknowledged, resolved, closed FROM responders WHERE id = $1', [id])).rows[0];
    expect(await times(person)).toEqual({ acknowledged: null, resolved: null, closed: null });
    await call(responder, 'POST', 'comments', { incident_id: inc, hypothesis_id: root, comment: 'on it' });
    expect((await times(person)).acknowledged).not.toBeNull();
    expect((await times(other)).acknowledged).toBeNull();
    await call(commander, 'PATCH', `incidents?id=eq.${inc}`, { status: 'resolved' });
    expect(await times(other)).toMatchObject({ acknowledged: expect.any(Date), resolved: expect.any(Date), closed: null });
    await call(commander, 'PATCH', `incidents?id=eq.${inc}`, { status: 'closed' });
    expect((await times(person)).closed).not.toBeNull();
  });
});

describe('definition of done: Automatic (a script over the evidence)', () => {
  const settle = async (id: string, until: (r: { done: boolean | null; script_result: string | null }) => boolean) => {
    for (let i = 0; i < 250; i++) {
      const row = (await t.db.query('SELECT done, script_result FROM evidences WHERE id = $1', [id])).rows[0];
      if (until(row)) return row;
      await new Promise((r) => setTimeout(r, 20));
    }
    return (await t.db.query('SELECT done, script_result FROM evidences WHERE id = $1', [id])).rows[0];
  };

  it('a check evidence is done once its script finds the check healthy; errors are shown in script_result', async () => {
    const inc = await newIncident();
    const root = await newHypothesis(inc);
    const canary = (await t.db.query(`INSERT INTO canaries (name, namespace, spec) VALUES ('dod', 'default', '{}') RETURNING id`)).rows[0].id;
    const check = (await t.db.query(
      `INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'dod-check', 'unhealthy') RETURNING id`, [canary])).rows[0].id;
    const ev = body(await call(responder, 'POST', 'evidences?select=id', {
      hypothesis_id: root, type: 'check', check_id: check, definition_of_done: true, script: "check.status == 'healthy'",
    }, rep))[0].id;
    expect(await settle(ev, (r) => r.script_result !== null)).toEqual({ done: false, script_result: 'false' });

    await t.db.query(`UPDATE checks SET status = 'healthy' WHERE id = $1`, [check]);
    await t.app.events.publish({ relation: 'checks', ids: [check] }); // as the check runner announces new results
    expect(await settle(ev, (r) => r.done === true)).toEqual({ done: true, script_result: 'true' });

    const bad = body(await call(responder, 'POST', 'evidences?select=id', {
      hypothesis_id: root, type: 'log', definition_of_done: true, script: 'check.status ==',
    }, rep))[0].id;
    const row = await settle(bad, (r) => r.script_result !== null);
    expect(row.done).toBe(false);
    expect(row.script_result).toMatch(/^error: /);
  });
});

describe('timeline: every event name of spec §4, written by the server with the acting person', () => {
  it('writes each event once, by whoever did it', async () => {
    const teamId = (await t.db.query(
      `INSERT INTO teams (name, spec, created_by) VALUES ('Timeline team', $1, $2) RETURNING id`,
      [{ responder_clients: { jira: {} } }, commander.id])).rows[0].id;
    const inc = body(await call(commander, 'POST', 'incidents?select=id', { title: 'Timeline' }, rep))[0].id;
    const root = body(await call(responder, 'POST', 'hypotheses?select=id', { incident_id: inc, title: 'r', type: 'root' }, rep))[0].id;
    const ev = body(await call(editor, 'POST', 'evidences?select=id', { hypothesis_id: root, type: 'log', description: 'l' }, rep))[0].id;
    await call(commander, 'PATCH', `evidences?id=eq.${ev}`, { definition_of_done: true });
    await call(responder, 'PATCH', `hypotheses?id=eq.${root}`, { status: 'proven' });
    await call(responder, 'POST', 'comments', { incident_id: inc, hypothesis_id: root, comment: 'done' });
    await call(editor, 'POST', 'responders', {
      incident_id: inc, type: 'system', team_id: teamId,
      properties: { responderType: 'jira', project: 'P', issueType: 'Bug', summary: 's', description: 'd', priority: 'High' },
    });
    await call(commander, 'PATCH', `incidents?id=eq.${inc}`, { status: 'investigating' });
    await call(responder, 'PATCH', `incidents?id=eq.${inc}`, { severity: 'high', type: 'security' });

    const res = await call(viewer, 'GET', `incident_histories?incident_id=eq.${inc}&order=created_at.asc&select=type,description,created_by`);
    expect(res.statusCode).toBe(200);
    const rows = body<{ type: string; description: string; created_by: string }[]>(res);
    expect(rows.map((r) => r.type).sort()).toEqual([...TimelineEvent.options].sort());
    const by = Object.fromEntries(rows.map((r) => [r.type, r]));
    expect(by['incident.created'].created_by).toBe(commander.id);
    expect(by['hypothesis.created'].created_by).toBe(responder.id);
    expect(by['evidence.created'].created_by).toBe(editor.id);
    expect(by['evidence.done_definition_added'].created_by).toBe(commander.id);
    expect(by['hypothesis.status_updated']).toMatchObject({ created_by: responder.id, description: 'Hypothesis r changed from possible to proven' });
    expect(by['responder.commented']).toMatchObject({ created_by: responder.id, description: 'done' });
    expect(by['responder.created']).toMatchObject({ created_by: editor.id, description: 'Responder added: Timeline team (jira)' });
    expect(by['incident.status_updated']).toMatchObject({ created_by: commander.id, description: 'Status changed from open to investigating' });
    expect(by['incident_status.updated']).toMatchObject({
      created_by: responder.id, description: 'Changed severity from low to high, type from availability to security',
    });
  });

  it('a refused write leaves no history', async () => {
    const inc = await newIncident('closed');
    const before = (await t.db.query('SELECT count(*)::int AS n FROM incident_histories WHERE incident_id = $1', [inc])).rows[0].n;
    expect((await call(commander, 'PATCH', `incidents?id=eq.${inc}`, { status: 'investigating' })).statusCode).toBe(400);
    expect((await t.db.query('SELECT count(*)::int AS n FROM incident_histories WHERE incident_id = $1', [inc])).rows[0].n).toBe(before);
  });
});

describe('roles (spec §6)', () => {
  it('a viewer reads incidents but writes none of incidents, hypotheses, evidences, comments, responders', async () => {
    const inc = await newIncident();
    const root = await newHypothesis(inc);
    expect((await call(viewer, 'GET', `incidents?id=eq.${inc}&select=id,hypotheses(id)`)).statusCode).toBe(200);
    const before = await countAll();
    const writes: [string, string, unknown][] = [
      ['POST', 'incidents', { title: 'nope' }],
      ['PATCH', `incidents?id=eq.${inc}`, { status: 'closed' }],
      ['POST', 'hypotheses', { incident_id: inc, title: 'x', type: 'root' }],
      ['DELETE', `hypotheses?id=eq.${root}`, undefined],
      ['POST', 'evidences', { hypothesis_id: root, type: 'log' }],
      ['POST', 'comments', { incident_id: inc, comment: 'hi' }],
      ['POST', 'responders', { incident_id: inc, type: 'person', person_id: viewer.id }],
      ['POST', 'rpc/create_incident', { title: 'nope' }],
      ['POST', 'rpc/delete_hypothesis', { id: root }],
      ['POST', 'rpc/link_to_incident', { incident_id: inc, evidence: { type: 'log' } }],
    ];
    for (const [method, url, payload] of writes) {
      const res = await call(viewer, method as 'POST', url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    expect(await countAll()).toEqual(before);
  });

  it('commander and responder write all of them', async () => {
    for (const who of [commander, responder]) {
      const inc = body(await call(who, 'POST', 'incidents?select=id', { title: 'mine' }, rep))[0].id;
      const root = body(await call(who, 'POST', 'hypotheses?select=id', { incident_id: inc, title: 'r', type: 'root' }, rep))[0].id;
      expect((await call(who, 'POST', 'evidences', { hypothesis_id: root, type: 'log' })).statusCode).toBe(201);
      expect((await call(who, 'POST', 'comments', { incident_id: inc, hypothesis_id: root, comment: 'c' })).statusCode).toBe(201);
      expect((await call(who, 'POST', 'responders', { incident_id: inc, type: 'person', person_id: viewer.id })).statusCode).toBe(201);
      expect((await call(who, 'PATCH', `incidents?id=eq.${inc}`, { status: 'closed' })).statusCode).toBe(204);
    }
  });

  it('resend of a responder needs write on responder', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/incidents/responders/0190f0a0-0000-4000-8000-000000000001/resend', headers: viewer.headers,
    });
    expect(res.statusCode).toBe(403);
    const missing = await t.app.inject({
      method: 'POST', url: '/api/incidents/responders/0190f0a0-0000-4000-8000-000000000001/resend', headers: commander.headers,
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('live updates', () => {
  it('a comment announces its incident (and its timeline) to the event bus', async () => {
    const inc = await newIncident();
    const root = await newHypothesis(inc);
    const seen: LiveMessage[] = [];
    const unsubscribe = t.app.events.bus.subscribe((e) => seen.push(e));
    try {
      const res = await call(responder, 'POST', 'comments', { incident_id: inc, hypothesis_id: root, comment: 'live' });
      expect(res.statusCode).toBe(201);
      const wanted = (rel: string) => seen.some((e) => e.type === 'change' && e.relation === rel && e.ids?.includes(inc));
      const comment = () => seen.some((e) => e.type === 'change' && e.relation === 'comments');
      for (let i = 0; i < 250 && !(wanted('incidents') && wanted('incident_histories') && comment()); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(wanted('incidents')).toBe(true);
      expect(wanted('incident_histories')).toBe(true);
      expect(comment()).toBe(true);
    } finally {
      unsubscribe();
    }
  });
});
