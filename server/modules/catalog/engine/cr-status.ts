import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type pg from 'pg';
import { kindByKind } from '../../kubernetes/kinds.js';
import { errorText, statusOf } from '../../kubernetes/objects.js';

/** A run's outcome as a ScrapeConfig CR's status reports it. */
export interface RunReport {
  status: 'SUCCESS' | 'WARNING' | 'FAILED';
  /** Items the run saved. */
  saved: number;
  errors: string[];
  finishedAt: Date;
}

/** Errors kept on the CR: its status is read with kubectl, the full list is in the job history. */
const MAX_STATUS_ERRORS = 10;
/** An unreachable API server must not hold the runner's slot: the write gives up after this. */
export const STATUS_WRITE_TIMEOUT_MS = 5_000;

/**
 * The status a run writes on its ScrapeConfig (a merge patch): `lastRun` as config-db's LastRunStatus
 * (`timestamp`, `success` = items saved, `error` = errors, `errors`), the generation whose spec ran, and
 * `errorMessage` (the first error) when the run FAILED, removed when a later run did not. `status`/`message` stay the
 * validation's (kubernetes/status.ts writes those on reconcile).
 */
export function runStatus(report: RunReport, generation: number | null): Record<string, unknown> {
  const failed = report.status === 'FAILED';
  return {
    ...(generation === null ? {} : { observedGeneration: generation }),
    lastRun: {
      timestamp: report.finishedAt.toISOString(),
      success: report.saved,
      error: report.errors.length,
      errors: report.errors.slice(0, MAX_STATUS_ERRORS).map((e) => e.slice(0, 1_000)),
    },
    errorMessage: failed ? (report.errors[0] ?? 'the run failed').slice(0, 2_000) : null,
  };
}

/**
 * Writes a run's outcome on the ScrapeConfig CR the scraper came from (kubernetes_objects says which, by row id);
 * a scraper made in the console has none and nothing is written. Never throws: a cluster that is unreachable or
 * refuses the write is logged at warn and the run is not affected.
 */
export async function writeRunStatus(
  deps: { db: pg.Pool; kube?: KubeConfig; log: { warn(obj: object, msg: string): void } },
  scraperId: string,
  report: RunReport,
): Promise<void> {
  if (!deps.kube) return;
  const kind = kindByKind('ScrapeConfig');
  if (!kind) return;
  try {
    const { rows } = await deps.db.query<{ namespace: string; name: string; generation: string | null }>(
      `SELECT namespace, name, generation::text FROM kubernetes_objects
        WHERE kind = 'ScrapeConfig' AND row_table = 'config_scrapers' AND row_id = $1 AND deleted_at IS NULL
        ORDER BY observed_at DESC LIMIT 1`, [scraperId]);
    const cr = rows[0];
    if (!cr) return;
    const api = deps.kube.makeApiClient(CustomObjectsApi);
    const target = { group: kind.group, version: kind.version, plural: kind.plural, namespace: cr.namespace, name: cr.name };
    const status = runStatus(report, cr.generation === null ? null : Number(cr.generation));
    const write = (async () => {
      for (let attempt = 1; ; attempt++) {
        // While the CR's spec is Invalid its errorMessage is the validation's (kubernetes/status.ts): a run of the last
        // valid spec, finishing after that reconcile, must not remove it. The resourceVersion read with the status
        // makes a reconcile in between a 409, and the write is decided again.
        const current = (await api.getNamespacedCustomObjectStatus(target)) as { metadata?: { resourceVersion?: string }; status?: { status?: string } };
        const { errorMessage, ...rest } = status;
        const body = {
          metadata: { resourceVersion: current.metadata?.resourceVersion },
          status: current.status?.status === 'Invalid' ? rest : { ...rest, errorMessage },
        };
        try {
          return await api.patchNamespacedCustomObjectStatus({ ...target, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
        } catch (err) {
          if (statusOf(err) !== 409 || attempt >= 3) throw err;
        }
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the API server in ${STATUS_WRITE_TIMEOUT_MS / 1000}s`)), STATUS_WRITE_TIMEOUT_MS);
    });
    try {
      await Promise.race([write, late]);
    } finally {
      clearTimeout(timer);
      write.catch(() => undefined); // a late failure after the timeout is already reported
    }
  } catch (err) {
    // a CR deleted meanwhile has no status to write
    if (statusOf(err) === 404) return;
    deps.log.warn({ err: errorText(err), scraper: scraperId }, 'catalog: could not write the run on its ScrapeConfig status');
  }
}
