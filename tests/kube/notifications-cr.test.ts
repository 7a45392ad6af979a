import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { specPathOf } from '../../server/modules/notifications/cr/check.js';
import { readOnlyReason } from '../../server/modules/notifications/cr/read-only.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { grantConsoleWriters, kubectl } from '../support/kube-tools.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';

/**
 * Notification and NotificationSilence CRs end to end with kubectl on the API test server: valid ones become rows
 * with every `to` / fallback field resolved (person by email, team by name, email as the system SMTP, a URL) and
 * durations in nanoseconds; an invalid edit (unknown person and event, bad CEL, bad template) is Invalid with the
 * paths and keeps the last row; a GitOps-owned rule is read-only (403); the leader writes the send counts.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const NOTIFICATION = kindByKind('Notification')!;
const SILENCE = kindByKind('NotificationSilence')!;
const fixture = (name: string) => readFileSync(join(root, 'tests/fixtures/notifications', name), 'utf8');
const MIN_NS = 60_000_000_000;

let kube: KubeApi;
let t: TestContext;
let dir: string;
let kubeconfig: string;
let editor: Record<string, string>;
let ownerId: string;
let teamId: string;

interface Condition { type: string; status: string; reason?: string; message?: string }
interface CrStatus {
  observedGeneration?: number; status?: string; errorMessage?: string; persistedID?: string; conditions?: Condition[];
  sent?: number; failed?: number; pending?: number; lastSent?: string; lastFailed?: string; error?: string | null;
}
const statusOf = (plural: string, name: string) =>
  kube.get(NOTIFICATION.group, NOTIFICATION.version, plural, 'default', name)?.status as CrStatus | undefined;
const ready = (plural: string, name: string) => statusOf(plural, name)?.conditions?.find((c) => c.type === 'Ready');
const rule = async (name: string) =>
  (await t.db.query(`SELECT * FROM notifications WHERE name = $1 AND source = 'KubernetesCRD' AND deleted_at IS NULL`, [name])).rows[0];
const apply = async (yaml: string) => {
  const r = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: yaml });
  expect(r.code, r.stderr).toBe(0);
};

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'notification-crs-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({
    KUBECONFIG: kubeconfig, POD_NAME: 'console-notification-crs', POD_NAMESPACE: 'default', NOTIFICATION_CR_STATUS_SECONDS: '0.3',
  });
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  ownerId = (await makePerson(t.db, { email: 'cr-owner@example.test' })).id;
  teamId = (await t.db.query(`INSERT INTO teams (name, created_by) VALUES ('cr-oncall', $1) RETURNING id`, [ownerId])).rows[0].id;
  grantConsoleWriters(kube, NOTIFICATION.group);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const rename = (yaml: string) => yaml.replace('name: check-failed-person', 'name: edited-rule');

it('a valid Notification becomes a row with its recipient, fallback and durations (ns), and is Ready', async () => {
  await apply(fixture('check-failed-person.yaml'));
  await apply(rename(fixture('check-failed-person.yaml'))); // edited into an invalid one by a later test
  const row = await until(() => rule('check-failed-person'), 'the CR reconciled into notifications');
  expect(row).toMatchObject({
    namespace: 'default', events: ['check.failed', 'check.passed'], filter: "check.type == 'http'", repeat_interval: '1h',
    person_id: ownerId, team_id: null, custom_services: null, group_by: ['check.name'],
    fallback_team_id: teamId, fallback_person_id: null,
  });
  expect(Number(row.wait_for)).toBe(5 * MIN_NS);
  expect(Number(row.wait_for_eval_period)).toBe(30_000_000_000);
  expect(Number(row.group_by_interval)).toBe(2 * MIN_NS);
  expect(Number(row.fallback_delay)).toBe(10 * MIN_NS);
  const cond = await until(async () => (ready('notifications', 'check-failed-person')?.status === 'True' ? ready('notifications', 'check-failed-person') : undefined), 'Ready True');
  expect(cond.reason).toBe('Reconciled');
  expect(statusOf('notifications', 'check-failed-person')).toMatchObject({ observedGeneration: 1, status: 'Ready', persistedID: row.id });
}, 30_000);

it('a NotificationSilence becomes a row with its window, filter and recursive flag', async () => {
  await apply(fixture('silence.yaml'));
  const silence = await until(async () => (await t.db.query(
    `SELECT * FROM notification_silences WHERE name = 'maintenance-window' AND source = 'KubernetesCRD'`,
  )).rows[0], 'the silence row');
  expect(silence).toMatchObject({ description: 'Planned database maintenance', filter: "check.name.startsWith('db-')", recursive: true, check_id: null });
  expect(new Date(silence.from).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  expect(new Date(silence.until).toISOString()).toBe('2030-01-01T00:00:00.000Z');
  await until(async () => ready(SILENCE.plural, 'maintenance-window')?.status === 'True' || undefined, 'silence Ready');
}, 30_000);

it('email, URL and team recipients map as the reference does', async () => {
  await apply(fixture('email-and-url.yaml'));
  await apply(fixture('team.yaml'));
  const email = await until(() => rule('email-on-incident'), 'the email rule');
  expect(email.custom_services).toEqual([{ url: 'smtp://system/?To=oncall%40example.test', properties: { subject: 'Incident' } }]);
  expect(email.properties).toEqual({ subject: 'Incident' });
  expect(email.inhibitions).toEqual([{ direction: 'outgoing', depth: 2, from: 'Kubernetes::Pod', to: ['Kubernetes::Deployment'] }]);
  const hook = await until(() => rule('webhook-on-check'), 'the webhook rule');
  expect(hook.custom_services).toEqual([{ url: 'https://hooks.example.test/notify' }]);
  const team = await until(() => rule('team-on-check'), 'the team rule');
  expect(team).toMatchObject({ team_id: teamId, person_id: null, custom_services: null });
}, 30_000);

it('the leader writes the send counts, last sent and failed and the error on the Notification status', async () => {
  const row = await rule('team-on-check');
  const resource = '01890000-0000-7000-8000-000000000001';
  const now = Date.now();
  const at = (min: number) => new Date(now - min * 60_000).toISOString();
  await t.db.query(
    `INSERT INTO notification_send_history (notification_id, status, source_event, resource_id, error, created_at) VALUES
      ($1, 'sent', 'check.failed', $2, NULL, $3), ($1, 'sent', 'check.failed', $2, NULL, $4),
      ($1, 'error', 'check.failed', $2, 'connection refused', $5), ($1, 'pending', 'check.failed', $2, NULL, $5)`,
    [row.id, resource, at(30), at(20), at(10)],
  );
  const status = await until(async () => (statusOf('notifications', 'team-on-check')?.sent === 2 && statusOf('notifications', 'team-on-check')?.status === 'Ready' ? statusOf('notifications', 'team-on-check') : undefined), 'the counts');
  expect(status).toMatchObject({ sent: 2, failed: 1, pending: 1, error: 'connection refused', status: 'Ready' });
  expect(Date.parse(status.lastSent!)).toBe(Date.parse(at(20)));
  expect(Date.parse(status.lastFailed!)).toBeGreaterThan(Date.parse(status.lastSent!));
  // a later success clears the error
  await t.db.query(`INSERT INTO notification_send_history (notification_id, status, source_event, resource_id) VALUES ($1, 'sent', 'check.failed', $2)`, [row.id, resource]);
  const next = await until(async () => (statusOf('notifications', 'team-on-check')?.sent === 3 ? statusOf('notifications', 'team-on-check') : undefined), 'the new count');
  expect(next.error ?? null).toBeNull();
}, 30_000);

it('a GitOps-owned Notification is read-only in the console: 403 naming its source', async () => {
  const flux = kube.apply({
    apiVersion: `${NOTIFICATION.group}/${NOTIFICATION.version}`, kind: 'Notification',
    metadata: {
      name: 'from-git', namespace: 'default',
      labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' },
    },
    spec: { events: ['check.failed'], to: { url: 'https://hooks.example.test/git' } },
  });
  const row = await until(() => rule('from-git'), 'the flux Notification reconciled');
  // the row keeps the CR's labels: the console's "Linked to" reads its GitOps owner from them
  expect(row.labels).toMatchObject({ 'kustomize.toolkit.fluxcd.io/name': 'apps' });
  expect(readOnlyReason('notification', row)).toMatch(/^Linked to Flux kustomization flux-system\/apps: /);
  await until(async () => (await t.db.query('SELECT managed_by FROM kubernetes_objects WHERE uid = $1', [flux.metadata!.uid])).rows[0]?.managed_by, 'its GitOps owner');
  // the leader writes the CR's Ready status once: take the version after it, so only a console write could move it
  await until(async () => ready('notifications', 'from-git')?.status === 'True' || undefined, 'its Ready status');
  const version = kube.get(NOTIFICATION.group, NOTIFICATION.version, 'notifications', 'default', 'from-git')!.metadata!.resourceVersion;
  const res = await t.app.inject({ method: 'PATCH', url: `/api/db/notifications?id=eq.${row.id}`, headers: editor, payload: { title: 'Mine' } });
  expect(res.statusCode).toBe(403);
  expect(res.json().message).toMatch(/KubernetesCRD|Linked to/);
  const del = await t.app.inject({ method: 'PATCH', url: `/api/db/notifications?id=eq.${row.id}`, headers: editor, payload: { deleted_at: new Date().toISOString() } });
  expect(del.statusCode).toBe(403);
  expect((await rule('from-git')).title).toBeNull();
  expect(kube.get(NOTIFICATION.group, NOTIFICATION.version, 'notifications', 'default', 'from-git')!.metadata!.resourceVersion).toBe(version);
}, 30_000);

it('an invalid edit is Invalid with every path and keeps the last valid row', async () => {
  // edited-rule was applied valid by the first test: the status writer's minimum interval between two writes of one
  // object (10 s) has mostly passed
  const before = await until(() => rule('edited-rule'), 'the valid row');
  await apply(rename(fixture('invalid.yaml')));
  const cond = await until(async () => (ready('notifications', 'edited-rule')?.status === 'False' ? ready('notifications', 'edited-rule') : undefined), 'Ready False');
  expect(cond.reason).toBe('InvalidSpec');
  expect(cond.message).toContain('spec.events[1]: unknown event "check.faild"');
  expect(cond.message).toContain('spec.to.person: unknown person "nobody@example.test"');
  expect(cond.message).toMatch(/spec\.filter: /);
  expect(cond.message).toMatch(/spec\.title: /);
  const status = statusOf('notifications', 'edited-rule')!;
  expect(status).toMatchObject({ observedGeneration: 2, status: 'Invalid' });
  expect(status.errorMessage).toContain('spec.to.person');
  const after = await rule('edited-rule');
  expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
}, 30_000);

it('a NotificationSilence whose until is before its from is Invalid and keeps its row', async () => {
  const { id } = (await t.db.query(`SELECT id FROM notification_silences WHERE name = 'maintenance-window'`)).rows[0];
  await apply(fixture('silence.yaml').replace('2030-01-01T00:00:00Z', '2025-01-01T00:00:00Z'));
  const cond = await until(async () => (ready(SILENCE.plural, 'maintenance-window')?.status === 'False' ? ready(SILENCE.plural, 'maintenance-window') : undefined), 'silence Invalid');
  expect(cond.message).toContain('spec.until');
  const kept = (await t.db.query(`SELECT until FROM notification_silences WHERE id = $1`, [id])).rows[0];
  expect(new Date(kept.until).toISOString()).toBe('2030-01-01T00:00:00.000Z');
}, 30_000);

it('maps the console validation paths to the CR spec and names why a row is read-only', () => {
  expect(specPathOf('events[1]')).toBe('spec.events[1]');
  expect(specPathOf('person_id')).toBe('spec.to.person');
  expect(specPathOf('custom_services[0].url')).toBe('spec.to.url');
  expect(specPathOf('custom_services[0]')).toBe('spec.to');
  expect(specPathOf('fallback_custom_services[0].connection')).toBe('spec.fallback.connection');
  expect(specPathOf('wait_for')).toBe('spec.waitFor');
  expect(specPathOf('wait_for_eval_period')).toBe('spec.waitForEvalPeriod');
  expect(specPathOf('filter')).toBe('spec.filter');
  expect(readOnlyReason('notification', { name: 'x', source: 'UI' })).toBeNull();
  expect(readOnlyReason('notification', { name: 'x', namespace: 'default', source: 'KubernetesCRD' })).toMatch(/default\/x comes from a Kubernetes custom resource/);
  expect(readOnlyReason('silence', { name: 'x', source: 'KubernetesCRD', labels: { 'argocd.argoproj.io/instance': 'ops' } })).toMatch(/^Linked to Argo CD application ops:/);
});
