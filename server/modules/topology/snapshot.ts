import type pg from 'pg';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { TopologyQuery, type TopologyComponent } from '../../contracts/topology.js';
import type { SnapshotManifest, SnapshotQuery } from '../../contracts/topology-extra.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { componentNow } from './history-queries.js';
import { parseTime } from './history.js';
import { fetchSubtree } from './queries.js';
import { collectLogs, type SnapshotLogs } from './snapshot-logs.js';
import { componentsWithLogs, dumpTable, relatedComponents, type DumpName } from './snapshot-queries.js';
import { toCsv } from './snapshot-csv.js';
import { buildTopology } from './tree.js';

/**
 * The zip is built in memory: rows per file are bounded (the newest kept, the manifest names what was cut), and a
 * snapshot over 64 MB uncompressed is refused (400: narrow the window). Components: the subtree 10 levels deep
 * (hidden ones too), with related=true up to 100 related components with 5 levels each.
 */
export const SNAPSHOT_BOUNDS = { rows: 10_000, check_statuses: 50_000, related: 100, bytes: 64 * 1024 * 1024 };
type Bounds = typeof SNAPSHOT_BOUNDS;

/** What the caller may read: files of a resource the caller cannot read, or of a feature that is off, are left out. */
export interface SnapshotAccess { checks: boolean; incidents: boolean; configs: boolean }

/**
 * Whose logs a snapshot holds (as mission-control's dumpLogs over its component ids): the component itself, and with
 * related=true every component of the snapshot (its subtree and the related ones) that has log selectors.
 */

export interface Snapshot { filename: string; zip: Uint8Array }

const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** GET /api/snapshot/topology/{id}: `snapshot-<RFC3339>/` with components.json, the CSVs and manifest.json. */
export async function topologySnapshot(db: pg.Pool, id: string, q: SnapshotQuery, access: SnapshotAccess,
  now = new Date(), bounds: Bounds = SNAPSHOT_BOUNDS, logs?: SnapshotLogs | null): Promise<Snapshot> {
  const start = parseTime('start', q.start ?? '15m', now);
  const end = q.end ? parseTime('end', q.end, now) : now;
  if (start > end) throw new BadRequestError('start: after end');
  const root = await componentNow(db, id);
  if (!root) throw new NotFoundError('component', id);

  const deep = TopologyQuery.parse({ id, depth: '10' });
  const rows = await fetchSubtree(db, id, true, 9);
  const trees: TopologyComponent[] = buildTopology(rows, deep).components;
  const ids = new Set(rows.map((r) => r.doc.id));
  if (q.related) {
    for (const rid of await relatedComponents(db, [...ids], bounds.related)) {
      if (ids.has(rid)) continue;
      const more = await fetchSubtree(db, rid, true, 4);
      trees.push(...buildTopology(more, TopologyQuery.parse({ id: rid })).components);
      for (const r of more) ids.add(r.doc.id);
    }
  }

  const dir = `snapshot-${rfc3339(now)}`;
  const manifest: SnapshotManifest = {
    component: { id, name: root.name }, start: start.toISOString(), end: end.toISOString(), related: q.related ?? false,
    files: {}, truncated: [], omitted: [],
  };
  const files: Zippable = {};
  let bytes = 0;
  const put = (name: string, text: string) => {
    const data = strToU8(text);
    bytes += data.length;
    if (bytes > bounds.bytes) throw new BadRequestError(`snapshot over ${Math.ceil(bounds.bytes / 1048576)} MB: narrow start/end or leave related off`);
    files[`${dir}/${name}`] = data;
  };
  const window: [Date, Date] = [start, end];
  const dump = async (name: DumpName, keys: string[], key?: string): Promise<string[]> => {
    const bound = name === 'check_statuses' ? bounds.check_statuses : bounds.rows;
    const { columns, rows: got } = await dumpTable(db, name, keys, window, bound);
    if (got.length > bound) { got.length = bound; manifest.truncated.push(`${name}.csv`); }
    put(`${name}.csv`, toCsv(columns, got));
    manifest.files[`${name}.csv`] = got.length;
    return key ? [...new Set(got.map((r) => String(r[key])))] : [];
  };
  const skip = (...names: DumpName[]) => manifest.omitted.push(...names.map((n) => `${n}.csv`));

  put('components.json', JSON.stringify(trees, null, 2));
  manifest.files['components.json'] = trees.length;
  const componentIds = [...ids];
  await dump('components', componentIds);
  if (access.checks) await dump('check_statuses', await dump('checks', componentIds, 'id'));
  else skip('checks', 'check_statuses');
  if (access.incidents) {
    const incidents = await dump('incidents', componentIds, 'id');
    await dump('hypotheses', incidents);
    await dump('evidences', incidents);
  } else skip('incidents', 'hypotheses', 'evidences');
  if (access.configs) {
    const configs = await dump('config_items', componentIds, 'id');
    await dump('config_changes', configs);
    await dump('config_analysis', configs);
  } else skip('config_items', 'config_changes', 'config_analysis');
  if (logs) {
    const got = await collectLogs(await componentsWithLogs(db, q.related ? componentIds : [id]), start, end, logs);
    for (const f of got.files) {
      put(f.name, f.text);
      manifest.files[f.name] = f.lines;
    }
    if (got.errors.length) manifest.logErrors = got.errors;
  } else manifest.omitted.push('logs');
  put('manifest.json', JSON.stringify(manifest, null, 2));

  const name = root.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'component';
  return { filename: `snapshot-${name}-${rfc3339(now).replace(/:/g, '-')}.zip`, zip: zipSync(files, { level: 6 }) };
}
