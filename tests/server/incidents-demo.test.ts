import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets } from '../../server/lib/demo.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { createTestApp, type TestContext } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('incidents demo set', () => {
  it('loads once after the foundation and health sets', async () => {
    const loaded = await loadDemoSets(t.db, DEMO_SETS);
    expect(loaded.indexOf('incidents')).toBeGreaterThan(loaded.indexOf('foundation'));
    expect(await loadDemoSets(t.db, DEMO_SETS)).toEqual([]);
  });

  it('adds an investigating incident with a hypothesis tree, evidence, comments, responders and its timeline', async () => {
    const { rows: [inc] } = await t.db.query(
      `SELECT i.id, i.status, i.severity, p.name AS commander FROM incidents i JOIN people p ON p.id = i.commander_id
       WHERE i.title LIKE 'Checkout API%'`);
    expect(inc).toMatchObject({ status: 'investigating', severity: 'high', commander: 'Bob Okafor' });
    const types = await t.db.query('SELECT type FROM hypotheses WHERE incident_id = $1 ORDER BY created_at', [inc.id]);
    expect(types.rows.map((r) => r.type)).toEqual(['root', 'factor', 'solution']);
    const ev = await t.db.query(
      `SELECT e.type, e.definition_of_done FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id
       WHERE h.incident_id = $1 ORDER BY e.created_at`, [inc.id]);
    expect(ev.rows).toEqual([
      { type: 'check', definition_of_done: false }, { type: 'log', definition_of_done: false }, { type: 'comment', definition_of_done: true },
      // the topology demo set's: the Ops Console database (tests/server/topology-demo.test.ts)
      { type: 'topology', definition_of_done: false },
    ]);
    const comments = await t.db.query('SELECT comment FROM comments WHERE incident_id = $1', [inc.id]);
    expect(comments.rows.some((r) => /@\[Dmitri Volkov\]\(user:[0-9a-f-]{36}\)/.test(r.comment))).toBe(true);
    const responders = await t.db.query('SELECT type, properties->>\'responderType\' AS rt FROM responders WHERE incident_id = $1 ORDER BY created_at', [inc.id]);
    expect(responders.rows).toEqual([{ type: 'person', rt: 'person' }, { type: 'system', rt: 'jira' }]);
    const history = await t.db.query(
      `SELECT DISTINCT h.type, p.name FROM incident_histories h JOIN people p ON p.id = h.created_by WHERE h.incident_id = $1`, [inc.id]);
    expect(history.rows).toEqual(expect.arrayContaining([
      { type: 'incident.created', name: 'Bob Okafor' }, { type: 'responder.commented', name: 'Carla Mendes' },
      { type: 'hypothesis.created', name: 'Dmitri Volkov' }, { type: 'incident.status_updated', name: 'Bob Okafor' },
    ]));
    const closed = await t.db.query(`SELECT status FROM incidents WHERE title = 'Slow catalog search'`);
    expect(closed.rows).toEqual([{ status: 'closed' }]);
  });
});
