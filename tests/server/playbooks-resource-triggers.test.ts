import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordResult } from '../../server/modules/health/queries.js';
import { EventConsumer } from '../../server/modules/events/consumer.js';
import type { EventHandler } from '../../server/modules/events/types.js';
import { canaryEventHandler, CHECK_EVENTS, SYSTEM_PERSON_ID } from '../../server/modules/playbooks/triggers/canary-trigger.js';
import { RESOURCE_EVENTS, resourceEventHandler } from '../../server/modules/playbooks/triggers/resource-trigger.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * on.config / on.component (issue 14 "Triggers"): config.* and component.* rows of event_queue (written by 0081) start
 * runs with config_id / component_id, matching the entry's event, labels and CEL filter, the playbook's selectors of
 * that kind and its filters; on.canary also applies the playbook's `checks` selectors. The engine is off: what is
 * asserted is the runs the triggers create.
 */

const quiet = { info() {}, warn() {}, debug() {} };
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
});
afterAll(() => t?.close());

/** A consumer of the test's own with the playbooks' handlers for checks, configs and components. */
function consumer(db: pg.Pool) {
  const handlers = new Map<string, EventHandler[]>();
  const canary = canaryEventHandler(db, quiet);
  for (const n of Object.keys(CHECK_EVENTS)) handlers.set(n, [canary]);
  for (const kind of ['config', 'component'] as const) {
    const h = resourceEventHandler(db, kind, quiet);
    for (const n of RESOURCE_EVENTS[kind]) handlers.set(n, [h]);
  }
  return new EventConsumer({ db, handlers, log: quiet, retry: { baseSeconds: 0 } });
}

let seq = 0;
const uniq = (s: string) => `${s}-${++seq}-${Date.now()}`;

async function makePlaybook(name: string, spec: Record<string, unknown>) {
  const full = { title: name, actions: [{ name: 'say', exec: { script: 'echo {{.params.target}}' } }], ...spec };
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO playbooks (name, namespace, title, spec, source) VALUES ($1, 'default', $1, $2, 'UI') RETURNING id`,
    [uniq(name), full]);
  return rows[0].id;
}

async function makeConfig(fields: { type?: string; labels?: Record<string, string>; tags?: Record<string, string>; health?: string }) {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO config_items (config_class, type, name, labels, tags, health, config)
     VALUES ('Pod', $1, $2, $3, $4, $5, '{"spec": {"replicas": 1}}') RETURNING id`,
    [fields.type ?? 'Kubernetes::Pod', uniq('pod'), fields.labels ?? {}, fields.tags ?? {}, fields.health ?? 'healthy']);
  return rows[0].id;
}

async function makeComponent(fields: { name?: string; labels?: Record<string, string>; health?: string }) {
  const name = fields.name ?? uniq('svc');
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO components (name, external_id, type, labels, health) VALUES ($1, $2, 'Service', $3, $4) RETURNING id`,
    [name, uniq('ext'), fields.labels ?? {}, fields.health ?? 'healthy']);
  return rows[0].id;
}

type RunRow = { id: string; config_id: string | null; component_id: string | null; check_id: string | null; created_by: string; parameters: Record<string, unknown>; status: string };
const runsOf = async (playbookId: string) => (await t.db.query<RunRow>(
  'SELECT * FROM playbook_runs WHERE playbook_id = $1 ORDER BY created_at', [playbookId])).rows;

async function drainAll() {
  const c = consumer(t.db);
  await c.drain();
  await c.drain();
}

/** The queue holds no row for these resources any more (consumed by the test's consumer or the app's). */
async function settled(ids: string[]) {
  const end = Date.now() + 20_000;
  for (;;) {
    await drainAll();
    const { rowCount } = await t.db.query('SELECT 1 FROM event_queue WHERE event_id = ANY($1::uuid[]) AND attempts < 3', [ids]);
    if (!rowCount || Date.now() > end) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('on.config', () => {
  it('created / unhealthy / updated events start one run each with config_id, labels (labels and tags) and filter applied', async () => {
    const onCreated = await makePlaybook('cfg-created', {
      on: { config: [{ event: 'created', labels: { team: 'shop' } }] },
      parameters: [{ name: 'target', default: 'restart {{.config.name}}' }],
    });
    const onUnhealthy = await makePlaybook('cfg-unhealthy', {
      on: { config: [{ event: 'unhealthy', labels: { env: '*' }, filter: "config.type == 'Kubernetes::Pod'" }] },
    });
    const onUpdated = await makePlaybook('cfg-updated', { on: { config: [{ event: 'updated', filter: 'config.config.spec.replicas == 2' }] } });
    const wrongLabel = await makePlaybook('cfg-wrong-label', { on: { config: [{ event: 'created', labels: { team: 'billing' } }] } });
    const wrongFilter = await makePlaybook('cfg-wrong-filter', { on: { config: [{ event: 'unhealthy', filter: "config.type == 'Kubernetes::Node'" }] } });
    const wrongKind = await makePlaybook('cfg-wrong-kind', { on: { component: [{ event: 'unhealthy' }] } });

    const id = await makeConfig({ labels: { team: 'shop' }, tags: { env: 'prod' } });
    await settled([id]);
    const created = await runsOf(onCreated);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ config_id: id, component_id: null, check_id: null, created_by: SYSTEM_PERSON_ID, status: 'scheduled' });
    expect(created[0].parameters.target).toMatch(/^restart pod-/);
    expect(await runsOf(wrongLabel)).toHaveLength(0);

    await t.db.query(`UPDATE config_items SET health = 'unhealthy' WHERE id = $1`, [id]);
    await settled([id]);
    expect(await runsOf(onUnhealthy)).toMatchObject([{ config_id: id }]);
    expect(await runsOf(wrongFilter)).toHaveLength(0);
    expect(await runsOf(wrongKind)).toHaveLength(0);

    await t.db.query(`UPDATE config_items SET config = '{"spec": {"replicas": 2}}' WHERE id = $1`, [id]);
    await settled([id]);
    expect(await runsOf(onUpdated)).toMatchObject([{ config_id: id }]);
    // no second run for the events already handled
    expect(await runsOf(onCreated)).toHaveLength(1);
    expect(await runsOf(onUnhealthy)).toHaveLength(1);
  });

  it('two different events on one config arriving together start two runs; a re-delivered event starts none', async () => {
    const both = await makePlaybook('cfg-both', { on: { config: [{ event: 'updated' }, { event: 'unhealthy' }] } });
    const id = await makeConfig({});
    await settled([id]);
    expect(await runsOf(both)).toHaveLength(0);
    // one statement: config.updated and config.unhealthy written together (same transaction, same created_at)
    await t.db.query(`UPDATE config_items SET health = 'unhealthy', config = '{"spec": {"replicas": 3}}' WHERE id = $1`, [id]);
    const queued = (await t.db.query<{ id: string; name: string; event_id: string; created_at: Date }>(
      'SELECT id, name, event_id, created_at FROM event_queue WHERE event_id = $1 ORDER BY name', [id])).rows;
    expect(queued.map((e) => e.name)).toEqual(['config.unhealthy', 'config.updated']);
    await settled([id]);
    const runs = await runsOf(both);
    expect(runs).toHaveLength(2);
    expect(runs.every((r) => r.config_id === id)).toBe(true);
    // the same events delivered again (an attempt that failed after creating the run, retried): no more runs
    const handler = resourceEventHandler(t.db, 'config', quiet);
    for (const e of queued) {
      await handler({ ...e, properties: null, attempts: 1 }, undefined as unknown as pg.PoolClient);
      await handler({ ...e, properties: null, attempts: 2 }, undefined as unknown as pg.PoolClient);
    }
    expect(await runsOf(both)).toHaveLength(2);
    // a later event of the same name on the same config is new: one more run
    await handler({ ...queued[1], id: queued[1].id, created_at: new Date(Date.now() + 1000), properties: null, attempts: 0 }, undefined as unknown as pg.PoolClient);
    expect(await runsOf(both)).toHaveLength(3);
  });

  it('the playbook\'s configs selectors and filters must hold too; config.deleted runs on the deleted item', async () => {
    const selected = await makePlaybook('cfg-sel', {
      on: { config: [{ event: 'deleted' }] }, configs: [{ types: ['Kubernetes::Deployment'] }],
    });
    const unselected = await makePlaybook('cfg-unsel', {
      on: { config: [{ event: 'deleted' }] }, configs: [{ types: ['Kubernetes::Node'] }],
    });
    const filtered = await makePlaybook('cfg-filtered', {
      on: { config: [{ event: 'deleted' }] }, filters: ["config.type == 'Kubernetes::Node'"],
    });
    const id = await makeConfig({ type: 'Kubernetes::Deployment' });
    await settled([id]);
    await t.db.query(`UPDATE config_items SET deleted_at = now(), delete_reason = 'gone' WHERE id = $1`, [id]);
    await settled([id]);
    expect(await runsOf(selected)).toMatchObject([{ config_id: id }]);
    expect(await runsOf(unselected)).toHaveLength(0);
    expect(await runsOf(filtered)).toHaveLength(0);
  });
});

describe('on.component', () => {
  it('a health change starts a run with component_id; labels, filter and components selectors apply', async () => {
    const name = uniq('checkout');
    const hit = await makePlaybook('comp-hit', {
      on: { component: [{ event: 'unhealthy', labels: { tier: 'web' }, filter: "component.type == 'Service'" }] },
      components: [{ name }],
      parameters: [{ name: 'target', default: '{{.component.name}}' }],
    });
    const otherSelector = await makePlaybook('comp-other-sel', { on: { component: [{ event: 'unhealthy' }] }, components: [{ name: 'not-this-one' }] });
    const otherEvent = await makePlaybook('comp-other-event', { on: { component: [{ event: 'warning' }] } });
    const otherLabel = await makePlaybook('comp-other-label', { on: { component: [{ event: 'unhealthy', labels: { tier: 'db' } }] } });
    const id = await makeComponent({ name, labels: { tier: 'web' } });
    await t.db.query(`UPDATE components SET health = 'unhealthy' WHERE id = $1`, [id]);
    await settled([id]);
    const runs = await runsOf(hit);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ component_id: id, config_id: null, created_by: SYSTEM_PERSON_ID, parameters: { target: name } });
    for (const p of [otherSelector, otherEvent, otherLabel]) expect(await runsOf(p)).toHaveLength(0);
  });

  it('a bad filter fails the event (kept with its error after 3 attempts), the other playbooks still run once', async () => {
    const good = await makePlaybook('comp-good', { on: { component: [{ event: 'warning', labels: { suite: 'bad-filter' } }] } });
    await makePlaybook('comp-broken', { on: { component: [{ event: 'warning', labels: { suite: 'bad-filter' }, filter: 'component.no_such == 1' }] } });
    const id = await makeComponent({ labels: { suite: 'bad-filter' } });
    await t.db.query(`UPDATE components SET health = 'warning' WHERE id = $1`, [id]);
    await settled([id]);
    const row = (await t.db.query<{ attempts: number; error: string }>('SELECT attempts, error FROM event_queue WHERE event_id = $1', [id])).rows[0];
    expect(row.attempts).toBe(3);
    expect(row.error).toContain('comp-broken');
    expect(await runsOf(good)).toHaveLength(1);
  });
});

describe('on.canary and the checks selectors', () => {
  it('a failing check starts runs only for playbooks whose checks selectors (when any) select it', async () => {
    const canary = (await t.db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, labels, source) VALUES ($1, 'triggers', '{}', '{}', 'UI') RETURNING id`, [uniq('canary')])).rows[0].id;
    const check = (await t.db.query<{ id: string }>(
      `INSERT INTO checks (canary_id, type, name, labels, status) VALUES ($1, 'http', $2, '{"suite": "sel"}', 'healthy') RETURNING id`,
      [canary, uniq('check')])).rows[0].id;
    const noSelectors = await makePlaybook('can-none', { on: { canary: [{ event: 'failed', labels: { suite: 'sel' } }] } });
    const httpOnly = await makePlaybook('can-http', { on: { canary: [{ event: 'failed', labels: { suite: 'sel' } }] }, checks: [{ types: ['http'] }] });
    const tcpOnly = await makePlaybook('can-tcp', { on: { canary: [{ event: 'failed', labels: { suite: 'sel' } }] }, checks: [{ types: ['tcp'] }] });
    await recordResult(t.db, {
      checkId: check, canaryId: canary, time: new Date(), duration: 5, pass: false, invalid: false,
      message: null, error: 'down', details: null, severity: null, nextRuntime: null,
    });
    await settled([check]);
    expect(await runsOf(noSelectors)).toMatchObject([{ check_id: check }]);
    expect(await runsOf(httpOnly)).toMatchObject([{ check_id: check }]);
    expect(await runsOf(tcpOnly)).toHaveLength(0);
  });
});
