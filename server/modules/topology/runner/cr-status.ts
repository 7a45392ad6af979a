import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type pg from 'pg';
import { STATUS_WRITE_TIMEOUT_MS } from '../../catalog/engine/cr-status.js';
import { kindByKind } from '../../kubernetes/kinds.js';
import { errorText, statusOf } from '../../kubernetes/objects.js';

/** A run's outcome as a Topology CR's status reports it. */
export interface TopologyRunReport {
  status: 'SUCCESS' | 'WARNING' | 'FAILED';
  /** The root component's status after the run (healthy, unhealthy, warning, unknown…). */
  rootStatus: string | null;
  errors: string[];
  finishedAt: Date;
}

/**
 * The status a run writes on its Topology (a merge patch), as canary-checker's TopologyStatus: `status` (the root's
 * health), `persistentID` (the topologies row), `observedGeneration`, `lastRuntime`, and `errorMessage` (the first
 * error) when the run FAILED, removed when a later run did not.
 */
export function topologyRunStatus(topologyId: string, report: TopologyRunReport, generation: number | null): Record<string, unknown> {
  return {
    ...(generation === null ? {} : { observedGeneration: generation }),
    persistentID: topologyId,
    status: report.rootStatus ?? (report.status === 'FAILED' ? 'Failed' : 'unknown'),
    lastRuntime: report.finishedAt.toISOString(),
    errorMessage: report.status === 'FAILED' ? (report.errors[0] ?? 'the run failed').slice(0, 2_000) : null,
  };
}

/**
 * Writes a run on the Topology CR the row came from (kubernetes_objects says which); a topology made in the console
 * has none. Never throws: an unreachable cluster is logged at warn and the run is not affected.
 */
export async function writeTopologyStatus(
  deps: { db: pg.Pool; kube?: KubeConfig; log: { warn(obj: object, msg: string): void } },
  topologyId: string,
  report: TopologyRunReport,
): Promise<void> {
  const kind = kindByKind('Topology');
  if (!deps.kube || !kind) return;
  try {
    const { rows } = await deps.db.query<{ namespace: string; name: string; generation: string | null }>(
      `SELECT namespace, name, generation::text FROM kubernetes_objects
        WHERE kind = 'Topology' AND row_table = 'topologies' AND row_id = $1 AND deleted_at IS NULL
        ORDER BY observed_at DESC LIMIT 1`, [topologyId]);
    const cr = rows[0];
    if (!cr) return;
    const api = deps.kube.makeApiClient(CustomObjectsApi);
    const body = { status: topologyRunStatus(topologyId, report, cr.generation === null ? null : Number(cr.generation)) };
    const write = api.patchNamespacedCustomObjectStatus(
      { group: kind.group, version: kind.version, plural: kind.plural, namespace: cr.namespace, name: cr.name, body },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    write.catch(() => undefined); // a late failure after the timeout is already reported
    await Promise.race([write, new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error(`no answer from the API server in ${STATUS_WRITE_TIMEOUT_MS / 1000}s`)), STATUS_WRITE_TIMEOUT_MS).unref();
    })]);
  } catch (err) {
    if (statusOf(err) === 404) return;
    deps.log.warn({ err: errorText(err), topology: topologyId }, 'topology: could not write the run on its Topology status');
  }
}
