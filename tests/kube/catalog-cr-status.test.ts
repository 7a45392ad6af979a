import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRunStatus } from '../../server/modules/catalog/engine/cr-status.js';
import { rowIdOf } from '../../server/modules/kubernetes/objects.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';
import { until } from '../support/poll.js';
import { closedPort } from '../fixtures/servers/tcp.js';

/**
 * A ScrapeConfig CR gets each run on its status, as config-db's ScrapeConfigStatus: `lastRun {timestamp, success,
 * error, errors}` and `observedGeneration`, plus `errorMessage` while the last run failed. The status is written after
 * a Run Now and a scheduled run alike; a cluster that is gone does not fail the run.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
let kube: KubeApi;
let t: TestContext;
let dir: string;
let admin: Record<string, string>;

interface LastRun { timestamp?: string; success?: number; error?: number; errors?: string[] }
interface ScrapeStatus { status?: string; errorMessage?: string; observedGeneration?: number; lastRun?: LastRun }

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  // the file scraper reads below the console's working directory only
  await mkdir(join(process.cwd(), 'data'), { recursive: true });
  dir = await mkdtemp(join(process.cwd(), 'data', 'catalog-cr-status-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-cr-status-test', POD_NAMESPACE: 'default' });
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
});
afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const cr = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'configs.flanksource.com/v1', kind: 'ScrapeConfig', metadata: { name, namespace: 'default' }, spec,
});
const statusOf = (name: string) => kube.get('configs.flanksource.com', 'v1', 'scrapeconfigs', 'default', name)?.status as
  ScrapeStatus | undefined;
/** Applies the CR and waits for its row (the CR sync). */
async function applied(name: string, spec: Record<string, unknown>): Promise<string> {
  const obj = kube.apply(cr(name, spec));
  const id = rowIdOf(obj.metadata!.uid!);
  await until(async () => (await t.db.query('SELECT 1 FROM config_scrapers WHERE id = $1', [id])).rowCount, `the row of ${name}`);
  return id;
}
const runNow = (id: string) => t.app.inject({ method: 'POST', url: `/api/config/run/${id}`, headers: admin });

describe('ScrapeConfig status after a run', () => {
  it('a run writes lastRun (items saved, no errors) and the generation it ran; Run Now writes a newer one', async () => {
    for (const n of ['a', 'b', 'c']) await writeFile(join(dir, `${n}.json`), JSON.stringify({ id: n, kind: 'Thing' }));
    const rel = relative(process.cwd(), dir);
    const id = await applied('files', { schedule: '@every 1h', file: [{ type: 'File', id: '$.id', paths: [`${rel}/*.json`] }] });
    // the scheduler runs a new scraper at once: its status arrives without a Run Now
    const first = await until(async () => (statusOf('files')?.lastRun?.timestamp ? statusOf('files') : undefined), 'the first run on the status');
    expect(first.lastRun).toMatchObject({ success: 3 });
    expect(first.lastRun!.error ?? 0).toBe(0);
    expect(first.errorMessage).toBeUndefined();
    expect(first.observedGeneration).toBe(1);

    await writeFile(join(dir, 'd.json'), JSON.stringify({ id: 'd', kind: 'Thing' }));
    const res = await runNow(id);
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('SUCCESS');
    const after = statusOf('files')!;
    expect(after.lastRun).toMatchObject({ success: 4 });
    expect(Date.parse(after.lastRun!.timestamp!)).toBeGreaterThan(Date.parse(first.lastRun!.timestamp!));
    // the validation's own fields are left as the CR sync wrote them
    await until(async () => statusOf('files')?.status === 'Ready', 'status Ready');
  });

  it('a failed run sets errorMessage and its errors; the next good run clears errorMessage', async () => {
    const port = await closedPort();
    const spec = { schedule: '@never', http: [{ url: `http://127.0.0.1:${port}/items`, id: '$.id', type: 'Thing' }] };
    const id = await applied('unreachable', spec);
    const res = await runNow(id);
    expect(res.json().status).toBe('FAILED');
    const failed = statusOf('unreachable')!;
    expect(failed.errorMessage).toMatch(new RegExp(`spec\\.http\\.0: .*127\\.0\\.0\\.1:${port}`));
    const job = (await t.db.query('SELECT error_count, details FROM job_history WHERE id = $1', [res.json().job_history_id])).rows[0];
    expect(failed.lastRun).toMatchObject({ error: job.error_count, errors: job.details.errors });
    expect(failed.lastRun!.errors![0]).toBe(failed.errorMessage);
    expect(failed.lastRun!.success ?? 0).toBe(0);
    // the CR sync's status write (after our write changed the object) keeps the run's errorMessage
    await until(async () => statusOf('unreachable')?.status === 'Ready', 'status Ready');
    expect(statusOf('unreachable')!.errorMessage).toBe(failed.errorMessage);

    const rel = relative(process.cwd(), dir);
    await applied('unreachable', { schedule: '@never', file: [{ type: 'File', id: '$.id', paths: [`${rel}/a.json`] }] });
    await until(async () => ((await t.db.query('SELECT spec FROM config_scrapers WHERE id = $1', [id])).rows[0]?.spec?.file ? true : undefined), 'the new spec');
    expect((await runNow(id)).json().status).toBe('SUCCESS');
    const good = statusOf('unreachable')!;
    expect(good.errorMessage).toBeUndefined();
    expect(good.lastRun).toMatchObject({ success: 1 });
    expect(good.observedGeneration).toBe(2);
  });

  it('a run finishing after its CR turned Invalid leaves the validation\'s errorMessage (the reconcile wrote it first)', async () => {
    const rel = relative(process.cwd(), dir);
    const good = { schedule: '@never', file: [{ type: 'File', id: '$.id', paths: [`${rel}/a.json`] }] };
    const id = await applied('late-run', good);
    kube.apply(cr('late-run', { ...good, file: [{ ...good.file[0], transform: { expr: 'config.(' } }] }));
    const invalid = await until(async () => (statusOf('late-run')?.status === 'Invalid' ? statusOf('late-run') : undefined), 'the Invalid status');
    expect(invalid.errorMessage).toMatch(/transform\.expr: invalid CEL/);
    // the run of the last valid spec, started before the edit, ends now
    const kc = new KubeConfig();
    kc.loadFromFile(join(dir, 'kubeconfig'));
    await writeRunStatus({ db: t.db, kube: kc, log: { warn() {} } }, id, { status: 'SUCCESS', saved: 1, errors: [], finishedAt: new Date() });
    const after = statusOf('late-run')!;
    expect(after.lastRun).toMatchObject({ success: 1 });
    expect(after.status).toBe('Invalid');
    expect(after.errorMessage).toBe(invalid.errorMessage);
  });

  it('a cluster that is gone does not fail the run (the status write is logged and given up)', async () => {
    const id = await applied('orphan', { schedule: '@never', file: [{ type: 'File', id: '$.id', paths: [`${relative(process.cwd(), dir)}/a.json`] }] });
    await kube.stop();
    const res = await runNow(id);
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('SUCCESS');
  });
});
