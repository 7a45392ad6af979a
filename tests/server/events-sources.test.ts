import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordResult } from '../../server/modules/health/queries.js';
import { knownEvents, SOURCES, sourceOfEvent } from '../../server/modules/events/sources/index.js';
import type { EventResource } from '../../server/modules/events/types.js';
import { NOTIFICATION_EVENTS } from '../../server/contracts/notifications.js';
import { createTestApp, makePerson, type TestContext } from './helpers.js';

/**
 * Event sources (issue 15 "Events"): each trigger writes its event in the transaction of the change (asserted inside
 * that transaction, then rolled back, so no consumer races the assertion), and each source loads the event's resource.
 */

let t: TestContext;
let person: string;
beforeAll(async () => {
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  person = (await makePerson(t.db, { roles: ['admin'] })).id;
});
afterAll(() => t?.close());

type Event = { name: string; event_id: string; properties: Record<string, unknown> | null };

/** Runs `work` in a transaction that is rolled back; the event_queue rows it wrote are returned with its value. */
async function inRolledBack<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await t.db.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SELECT set_config('app.actor_id', $1, true)`, [person]);
    return await work(c);
  } finally {
    await c.query('ROLLBACK');
    c.release();
  }
}

const eventsSince = async (c: pg.PoolClient, mark: Date): Promise<Event[]> =>
  (await c.query<Event>('SELECT name, event_id::text, properties FROM event_queue WHERE created_at >= $1 ORDER BY name, event_id', [mark])).rows;

async function load(c: pg.PoolClient, e: Event): Promise<EventResource | null> {
  const source = sourceOfEvent(e.name);
  expect(source, e.name).toBeDefined();
  return source!.load(c, e);
}

async function mark(c: pg.PoolClient): Promise<Date> {
  // created_at is now(): the transaction's start; events written later in it share it
  return (await c.query<{ now: Date }>('SELECT now()')).rows[0].now;
}

describe('the registry', () => {
  it('knows every event a source writes, each once; every notification event of a source kind is covered', () => {
    const names = knownEvents();
    expect(new Set(names).size).toBe(names.length);
    expect(SOURCES.map((s) => s.kind)).toEqual(expect.arrayContaining(['check', 'incident', 'component', 'config']));
    for (const e of NOTIFICATION_EVENTS.filter((n) => /^(check|incident|component)\./.test(n))) expect(names).toContain(e);
    expect(sourceOfEvent('incident.status.resolved')?.kind).toBe('incident');
    expect(sourceOfEvent('nope.nothing')).toBeUndefined();
  });
});

describe('check', () => {
  it('check.failed on a flip, loaded with its canary, health and links; stillMatches follows the health', async () => {
    await inRolledBack(async (c) => {
      const canary = (await c.query<{ id: string }>(
        `INSERT INTO canaries (name, namespace, spec, labels, source) VALUES ('src-canary', 'events', '{}', '{"team":"ops"}', 'UI') RETURNING id`)).rows[0].id;
      const check = (await c.query<{ id: string }>(
        `INSERT INTO checks (canary_id, type, name, labels, status) VALUES ($1, 'http', 'src-check', '{"tier":"web"}', 'healthy') RETURNING id`, [canary])).rows[0].id;
      const m = await mark(c);
      await recordResult(c as unknown as pg.Pool, {
        checkId: check, canaryId: canary, time: new Date(), duration: 5, pass: false, invalid: false,
        message: null, error: 'down', details: null, severity: null, nextRuntime: null,
      });
      const events = await eventsSince(c, m);
      expect(events.map((e) => [e.name, e.event_id])).toEqual([['check.failed', check]]);
      const r = (await load(c, events[0]))!;
      expect(r).toMatchObject({
        kind: 'check', id: check, name: 'src-check', type: 'http', health: 'unhealthy',
        labels: { team: 'ops', tier: 'web' },
        permalink: `/health?checkId=${check}`, silenceLink: `/notifications/silences/add?check_id=${check}`,
        silenceKeys: { check_id: check, canary_id: canary },
      });
      expect((r.env.canary as { name: string }).name).toBe('src-canary');
      expect((r.env.check as { name: string }).name).toBe('src-check');
      const src = sourceOfEvent('check.failed')!;
      expect([src.stillMatches(r, 'check.failed'), src.stillMatches(r, 'check.passed')]).toEqual([true, false]);
      await c.query('DELETE FROM checks WHERE id = $1', [check]);
      expect(await load(c, events[0])).toBeNull();
    });
  });
});

describe('incident', () => {
  it('created, status, responder added and removed, comment, definition of done: each written and loaded', async () => {
    await inRolledBack(async (c) => {
      let m = await mark(c);
      const inc = (await c.query<{ id: string }>(
        `INSERT INTO incidents (title, created_by, commander_id, status) VALUES ('Disk full', $1, $1, 'open') RETURNING id`, [person])).rows[0].id;
      let events = await eventsSince(c, m);
      expect(events.map((e) => [e.name, e.event_id])).toEqual([['incident.created', inc]]);
      const created = (await load(c, events[0]))!;
      expect(created).toMatchObject({ kind: 'incident', id: inc, name: 'Disk full', status: 'open', health: null, permalink: `/incidents/${inc}` });
      expect((created.env.incident as { title: string }).title).toBe('Disk full');

      await c.query("UPDATE incidents SET status = 'investigating' WHERE id = $1", [inc]);
      await c.query("UPDATE incidents SET title = 'Disk full!' WHERE id = $1", [inc]); // no status change: no event
      events = await eventsSince(c, m);
      expect(events.map((e) => e.name)).toEqual(['incident.created', 'incident.status.investigating']);
      const status = (await load(c, events[1]))!;
      const src = sourceOfEvent('incident.status.investigating')!;
      expect([src.stillMatches(status, 'incident.status.investigating'), src.stillMatches(status, 'incident.status.resolved')]).toEqual([true, false]);

      const responder = (await c.query<{ id: string }>(
        `INSERT INTO responders (incident_id, type, person_id, created_by) VALUES ($1, 'person', $2, $2) RETURNING id`, [inc, person])).rows[0].id;
      const comment = (await c.query<{ id: string }>(
        `INSERT INTO comments (incident_id, comment, created_by) VALUES ($1, 'looking', $2) RETURNING id`, [inc, person])).rows[0].id;
      const hyp = (await c.query<{ id: string }>(
        `INSERT INTO hypotheses (incident_id, title, type, created_by) VALUES ($1, 'root', 'root', $2) RETURNING id`, [inc, person])).rows[0].id;
      const plain = await c.query(`INSERT INTO evidences (hypothesis_id, type, description, created_by) VALUES ($1, 'log', 'x', $2)`, [hyp, person]);
      expect(plain.rowCount).toBe(1);
      const dod = (await c.query<{ id: string }>(
        `INSERT INTO evidences (hypothesis_id, type, description, definition_of_done, created_by) VALUES ($1, 'log', 'df < 90%', true, $2) RETURNING id`,
        [hyp, person])).rows[0].id;
      await c.query('UPDATE evidences SET done = true WHERE id = $1', [dod]);
      await c.query('UPDATE evidences SET description = $2 WHERE id = $1', [dod, 'df < 80%']); // no event
      m = await mark(c);
      events = await eventsSince(c, m);
      const byName = new Map(events.map((e) => [e.name, e]));
      expect([...byName.keys()].sort()).toEqual([
        'incident.comment.added', 'incident.created', 'incident.dod.added', 'incident.dod.passed', 'incident.responder.added',
        'incident.status.investigating',
      ]);
      expect(byName.get('incident.responder.added')!.event_id).toBe(responder);
      expect(byName.get('incident.comment.added')!.event_id).toBe(comment);
      expect(byName.get('incident.dod.passed')!.event_id).toBe(dod);

      const added = (await load(c, byName.get('incident.responder.added')!))!;
      expect(added.id).toBe(inc);
      expect((added.env.responder as { person_id: string }).person_id).toBe(person);
      const said = (await load(c, byName.get('incident.comment.added')!))!;
      expect([said.id, (said.env.comment as { comment: string }).comment]).toEqual([inc, 'looking']);
      const passed = (await load(c, byName.get('incident.dod.passed')!))!;
      expect([passed.id, (passed.env.evidence as { done: boolean }).done]).toEqual([inc, true]);
      expect(sourceOfEvent('incident.dod.passed')!.stillMatches(passed, 'incident.dod.passed')).toBe(true);

      await c.query('UPDATE evidences SET done = false WHERE id = $1', [dod]);
      await c.query('DELETE FROM responders WHERE id = $1', [responder]);
      events = await eventsSince(c, m);
      const regressed = events.find((e) => e.name === 'incident.dod.regressed')!;
      expect(regressed.event_id).toBe(dod);
      const removed = events.find((e) => e.name === 'incident.responder.removed')!;
      expect(removed.event_id).toBe(responder);
      // the responder row is gone: loaded from the copy the event carries
      const gone = (await load(c, removed))!;
      expect([gone.id, (gone.env.responder as { id: string }).id]).toEqual([inc, responder]);
    });
  });
});

describe('component', () => {
  it('component.<health> when a live component\'s health changes; parents from its path', async () => {
    await inRolledBack(async (c) => {
      const parent = (await c.query<{ id: string }>(
        `INSERT INTO components (name, external_id, type, health) VALUES ('cluster', 'ext-p', 'Cluster', 'healthy') RETURNING id`)).rows[0].id;
      const m = await mark(c);
      const child = (await c.query<{ id: string }>(
        `INSERT INTO components (name, external_id, type, health, parent_id, path) VALUES ('node', 'ext-c', 'Node', 'healthy', $1, $2) RETURNING id`,
        [parent, parent])).rows[0].id;
      expect(await eventsSince(c, m)).toEqual([]); // an insert is no health change
      await c.query("UPDATE components SET health = 'unhealthy' WHERE id = $1", [child]);
      await c.query("UPDATE components SET status = 'Degraded' WHERE id = $1", [child]); // no health change: no event
      await c.query("UPDATE components SET health = 'warning', deleted_at = now() WHERE id = $1", [parent]); // deleted: none
      const events = await eventsSince(c, m);
      expect(events.map((e) => [e.name, e.event_id])).toEqual([['component.unhealthy', child]]);
      const r = (await load(c, events[0]))!;
      expect(r).toMatchObject({
        kind: 'component', id: child, name: 'node', type: 'Node', health: 'unhealthy', status: 'Degraded',
        permalink: `/topology/${child}`, silenceKeys: { component_id: child, parents: [parent] },
      });
      const src = sourceOfEvent('component.unhealthy')!;
      expect([src.stillMatches(r, 'component.unhealthy'), src.stillMatches(r, 'component.healthy')]).toEqual([true, false]);
    });
  });
});

describe('config', () => {
  it('config.created, .updated, .<health>, .deleted; a deleted item loads for config.deleted only', async () => {
    await inRolledBack(async (c) => {
      const m = await mark(c);
      const id = (await c.query<{ id: string }>(
        `INSERT INTO config_items (config_class, type, name, config, health, tags, path)
         VALUES ('Deployment', 'Kubernetes::Deployment', 'web', '{"replicas":1}', 'healthy', '{"env":"prod"}', 'a.b') RETURNING id`)).rows[0].id;
      await c.query(`UPDATE config_items SET config = '{"replicas":2}' WHERE id = $1`, [id]);
      await c.query(`UPDATE config_items SET health = 'unhealthy', description = 'crashloop' WHERE id = $1`, [id]);
      await c.query(`UPDATE config_items SET labels = '{"x":"y"}' WHERE id = $1`, [id]); // no event
      let events = await eventsSince(c, m);
      expect(events.map((e) => e.name)).toEqual(['config.created', 'config.unhealthy', 'config.updated']);
      const r = (await load(c, events[1]))!;
      expect(r).toMatchObject({
        kind: 'config', id, name: 'web', type: 'Kubernetes::Deployment', health: 'unhealthy', tags: { env: 'prod' },
        permalink: `/catalog/${id}`, silenceLink: `/notifications/silences/add?config_id=${id}`,
        silenceKeys: { config_id: id, parents: ['a', 'b'] },
      });
      expect((r.env.config as { config: unknown }).config).toEqual({ replicas: 2 });
      await c.query(`UPDATE config_items SET deleted_at = now(), delete_reason = 'gone' WHERE id = $1`, [id]);
      events = await eventsSince(c, m);
      const deleted = events.find((e) => e.name === 'config.deleted')!;
      expect(deleted.event_id).toBe(id);
      const dr = (await load(c, deleted))!;
      expect(sourceOfEvent('config.deleted')!.stillMatches(dr, 'config.deleted')).toBe(true);
      expect(await load(c, events.find((e) => e.name === 'config.unhealthy')!)).toBeNull();
    });
  });
});
