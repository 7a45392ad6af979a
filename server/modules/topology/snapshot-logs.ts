import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type pg from 'pg';
import type { LogLine } from '../../contracts/logs.js';
import type { ValueFromResolver } from '../../lib/value-from.js';
import { ConnectionResolver } from '../health/connections.js';
import { resolveSearch } from '../logs/search.js';
import type { BackendContext } from '../logs/types.js';

/**
 * The snapshot's logs (mission-control's dumpLogs, `logFormat=log|json`): for each component of the snapshot that has
 * log selectors, its lines in the window from the logs module (its own search: the selector's backend route,
 * credentials, the backend's timeout), one file per component named as the reference names it,
 * `logs-<type>-<name>-<sha256(id)>.<log|json>`. `log`: one line each, `[<timestamp>] <message> {k=v, …}`, oldest
 * first; `json`: the reference's ComponentLogs `{logs, id, name, type}`. Each component's fetch has its own timeout and
 * the whole step a budget: a backend that fails or is slow is a line of the manifest's `logErrors`, never the
 * snapshot's failure (the reference fails the whole snapshot).
 */

export type LogFormat = 'log' | 'json';

export const SNAPSHOT_LOG_BOUNDS = {
  /** components whose logs are read */
  components: 50,
  /** lines per component (each selector asks for this many, the newest kept) */
  lines: 1_000,
  /** one component's fetch (all its selectors) */
  timeoutMs: 10_000,
  /** the whole logs step */
  budgetMs: 30_000,
};
export type SnapshotLogBounds = typeof SNAPSHOT_LOG_BOUNDS;

export interface LogComponent { id: string; name: string; type: string | null; selectors: string[] }

/** Every line of a component's selectors in [start, end], newest first; throws with a message naming the selector. */
export type ComponentLogFetch = (c: LogComponent, start: Date, end: Date, signal: AbortSignal) => Promise<LogLine[]>;

export interface SnapshotLogs {
  format: LogFormat;
  fetch: ComponentLogFetch;
  bounds?: SnapshotLogBounds;
}

export interface LogFile { name: string; text: string; lines: number }

export interface LogsDeps {
  db: pg.Pool;
  valueFrom: ValueFromResolver | null;
  kube: () => KubeConfig | null;
}

/** The logs module's search, run to its end for each selector of a component (the backend's labels added). */
export function logsModuleFetch(deps: LogsDeps, bounds: SnapshotLogBounds = SNAPSHOT_LOG_BOUNDS): ComponentLogFetch {
  const connections = new ConnectionResolver({ db: deps.db, valueFrom: deps.valueFrom ?? undefined });
  return async (c, start, end, signal) => {
    const ctx: BackendContext = { kube: deps.kube(), timeoutMs: bounds.timeoutMs, pollMs: 2_000, firstBatch: bounds.lines, batch: bounds.lines };
    const out: LogLine[] = [];
    for (const name of c.selectors) {
      try {
        const s = await resolveSearch({ db: deps.db, connections, valueFrom: deps.valueFrom },
          { id: c.id, name, start: start.toISOString(), end: end.toISOString(), limit: bounds.lines }, signal, end);
        const extra = s.config.labels && typeof s.config.labels === 'object' && !Array.isArray(s.config.labels)
          ? s.config.labels as Record<string, string> : {};
        const gen = s.backend.search(ctx, s.config, s.query);
        let got = 0;
        for (let step = await gen.next(); !step.done; step = await gen.next()) {
          for (const l of step.value) out.push({ ...l, labels: { ...extra, ...l.labels } });
          got += step.value.length;
          if (got >= bounds.lines) {
            await gen.return?.({});
            break;
          }
        }
      } catch (err) {
        throw new Error(`log selector "${name}": ${signal.aborted ? `timed out after ${bounds.timeoutMs / 1000} s` : (err as Error).message}`);
      }
    }
    return out;
  };
}

const labelText = (labels: Record<string, string>) => Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(', ');
const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'component';

/** The file of one component's lines, or null when it has none (as the reference: no file). */
export function logFile(c: LogComponent, lines: LogLine[], format: LogFormat): LogFile | null {
  if (!lines.length) return null;
  const oldestFirst = [...lines].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  const hash = createHash('sha256').update(c.id).digest('hex');
  const name = `logs-${safe(c.type ?? '')}-${safe(c.name)}-${hash}.${format}`;
  const text = format === 'json'
    ? JSON.stringify({ logs: oldestFirst.map(({ timestamp, message, labels }) => ({ timestamp, message, labels })), id: c.id, name: c.name, type: c.type ?? '' }, null, 2)
    : oldestFirst.map((l) => `[${l.timestamp}] ${l.message} {${labelText(l.labels)}}`).join('\n');
  return { name, text, lines: lines.length };
}

/** Each component's log file; what failed or timed out is an error line. */
export async function collectLogs(components: LogComponent[], start: Date, end: Date, logs: SnapshotLogs): Promise<{ files: LogFile[]; errors: string[] }> {
  const bounds = logs.bounds ?? SNAPSHOT_LOG_BOUNDS;
  const files: LogFile[] = [];
  const errors: string[] = [];
  const deadline = Date.now() + bounds.budgetMs;
  const list = components.filter((c) => c.selectors.length);
  if (list.length > bounds.components) errors.push(`logs of the first ${bounds.components} of ${list.length} components with log selectors`);
  for (const c of list.slice(0, bounds.components)) {
    const left = deadline - Date.now();
    if (left <= 0) {
      errors.push(`${c.name}: not read (the snapshot's ${bounds.budgetMs / 1000} s for logs ran out)`);
      continue;
    }
    const ac = new AbortController();
    const ms = Math.min(bounds.timeoutMs, left);
    const timer = setTimeout(() => ac.abort(new Error('timeout')), ms);
    try {
      const lines = await Promise.race([
        logs.fetch(c, start, end, ac.signal),
        new Promise<never>((_, reject) => ac.signal.addEventListener('abort', () => reject(new Error(`timed out after ${Math.round(ms / 100) / 10} s`)), { once: true })),
      ]);
      const f = logFile(c, lines.slice(0, bounds.lines * Math.max(1, c.selectors.length)), logs.format);
      if (f) files.push(f);
    } catch (err) {
      errors.push(`${c.name}: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
  }
  return { files, errors };
}
