import { AppsV1Api, CoreV1Api, type KubeConfig, type V1LabelSelector, type V1Pod } from '@kubernetes/client-node';
import { isLogsKind, LOGS_KIND_MESSAGE, LogsAction } from '../../../contracts/playbook-actions/logs.js';
import { evalCel, parseLongDuration } from '../../../lib/cel.js';
import { errorText, withTimeout } from '../../kubernetes/objects.js';
import { contextNamespace } from './pod.js';
import { abortable, abortError } from './support.js';
import type { ActionContext, PlaybookActionType } from './types.js';

/**
 * The `logs` action with its `kubernetes` backend (issue 14; the reference's logs/k8s request): the pods of `kind`
 * `namespace`/`name` (a Pod, or the pods a Deployment, StatefulSet, DaemonSet or ReplicaSet selects) or those matching
 * `pods` selectors (`name`, `labelSelector`), each container (or the `containers` named), read through the console's
 * cluster access → `{logs: [{timestamp, message, host, container, namespace, labels, count}]}` oldest first.
 * `start`/`end`: `now-1h`, `1h` (both: an hour ago) or an RFC 3339 time; `limit`: the last lines of each container.
 * Then `dedupe.fields` (message, host, container, `label.<key>`) keeps the first line of each distinct value, and
 * `match` (CEL over `message`, `host`, `labels`, `timestamp`) keeps lines any expression is true for. A templated
 * `kind` (the reference's `$(.config.config_class)`) is checked once rendered: anything but those kinds fails the
 * action, naming the field and the value.
 */
export const MAX_LINES = 5000;
const API_TIMEOUT_MS = 15_000;

interface LogLine {
  timestamp: string;
  message: string;
  host: string;
  container: string;
  namespace: string;
  labels: Record<string, string>;
  count: number;
}

/** An absolute time from `now-1h`, `now`, `1h` (ago) or an RFC 3339 time; undefined when unset. */
export function timeOf(text: string | undefined, field: string, now = Date.now()): number | undefined {
  const t = text?.trim();
  if (!t) return undefined;
  if (t === 'now') return now;
  const rel = /^now\s*-\s*(.+)$/.exec(t)?.[1] ?? t;
  const ms = parseLongDuration(rel);
  if (ms !== null) return now - Math.abs(ms);
  const abs = Date.parse(t);
  if (Number.isNaN(abs)) throw new Error(`logs: ${field} must be like now-1h, 1h or an RFC 3339 time (got ${t})`);
  return abs;
}

function selectorText(sel: V1LabelSelector | undefined): string {
  const parts = Object.entries(sel?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel?.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

const globRe = (g: string) => new RegExp(`^${g.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

async function podsOf(kc: KubeConfig, req: NonNullable<LogsAction['kubernetes']>, ns: string, ctx: ActionContext): Promise<V1Pod[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const call = <T>(p: Promise<T>, what: string) => abortable(withTimeout(p, API_TIMEOUT_MS, what), ctx.signal);
  const list = async (labelSelector: string) => (await call(core.listNamespacedPod({ namespace: ns, labelSelector: labelSelector || undefined }), `pods in ${ns}`)).items;
  const kind = req.kind ?? (req.name ? 'Pod' : undefined);
  const found = new Map<string, V1Pod>();
  if (kind && req.name) {
    if (kind === 'Pod') {
      found.set(req.name, await call(core.readNamespacedPod({ name: req.name, namespace: ns }), `pod ${ns}/${req.name}`));
    } else {
      const apps = kc.makeApiClient(AppsV1Api);
      const what = `${kind} ${ns}/${req.name}`;
      const args = { name: req.name, namespace: ns };
      const owner = kind === 'Deployment' ? await call(apps.readNamespacedDeployment(args), what)
        : kind === 'StatefulSet' ? await call(apps.readNamespacedStatefulSet(args), what)
          : kind === 'DaemonSet' ? await call(apps.readNamespacedDaemonSet(args), what)
            : await call(apps.readNamespacedReplicaSet(args), what);
      const selector = selectorText(owner.spec?.selector);
      if (!selector) throw new Error(`logs: ${what} has no pod selector`);
      for (const p of await list(selector)) found.set(p.metadata!.name!, p);
    }
  }
  for (const sel of req.pods ?? []) {
    const named = sel.name ? globRe(sel.name) : null;
    for (const p of await list(sel.labelSelector ?? '')) if (!named || named.test(p.metadata!.name!)) found.set(p.metadata!.name!, p);
  }
  return [...found.values()];
}

async function readLines(kc: KubeConfig, pod: V1Pod, container: string, req: NonNullable<LogsAction['kubernetes']>, since: number | undefined, ctx: ActionContext): Promise<LogLine[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const name = pod.metadata!.name!;
  const namespace = pod.metadata!.namespace!;
  const limit = req.limit === undefined ? undefined : Number(req.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw new Error(`logs: limit must be a whole number (got ${String(req.limit)})`);
  let text: string;
  try {
    text = await abortable(withTimeout(core.readNamespacedPodLog({
      name, namespace, container, timestamps: true, tailLines: limit,
      sinceSeconds: since === undefined ? undefined : Math.max(1, Math.ceil((Date.now() - since) / 1000)),
    }), API_TIMEOUT_MS, `log of ${namespace}/${name}`), ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    throw new Error(`logs: could not read the log of ${namespace}/${name} (${container}): ${errorText(err)}`);
  }
  const out: LogLine[] = [];
  for (const raw of String(text ?? '').split('\n')) {
    const sp = raw.indexOf(' ');
    if (sp < 0) continue;
    const ts = Date.parse(raw.slice(0, sp));
    if (Number.isNaN(ts)) continue;
    out.push({
      timestamp: new Date(ts).toISOString(), message: raw.slice(sp + 1), host: name, container, namespace,
      labels: pod.metadata?.labels ?? {}, count: 1,
    });
  }
  return out;
}

function dedupeKey(line: LogLine, field: string): string {
  if (field.startsWith('label.')) return `label:${line.labels[field.slice(6)] ?? ''}`;
  const v = (line as unknown as Record<string, unknown>)[field];
  return `${field}:${typeof v === 'string' || typeof v === 'number' ? v : JSON.stringify(v ?? null)}`;
}

/** The value at a parse issue's path, for the message. */
function valueAt(block: unknown, path: readonly PropertyKey[]): unknown {
  let v = block;
  for (const k of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}…` : v) : JSON.stringify(v) ?? String(v));

/**
 * The rendered block checked again: fields a template stood for at save (`kind: $(.config.config_class)`) are checked
 * now, a problem naming the field and the value it rendered to.
 */
function parseBlock(block: Record<string, unknown>): LogsAction {
  // checked as rendered, first: what a template rendered to is a value, even one that looks like a template
  const kind = valueAt(block, ['kubernetes', 'kind']);
  if (kind !== undefined && !isLogsKind(kind)) throw new Error(`logs: kubernetes.kind: ${LOGS_KIND_MESSAGE} (got ${shown(kind)})`);
  const parsed = LogsAction.safeParse(block);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue.path.map(String).join('.');
  const value = valueAt(block, issue.path);
  throw new Error(`logs: ${at ? `${at}: ` : ''}${issue.message}${value === undefined ? '' : ` (got ${shown(value)})`}`);
}

async function runLogs(block: Record<string, unknown>, ctx: ActionContext): Promise<Record<string, unknown>> {
  const spec = parseBlock(block);
  const req = spec.kubernetes!;
  const kc = ctx.options.kube;
  if (!kc) throw new Error('logs: no Kubernetes cluster connection (KUBECONFIG or in-cluster credentials)');
  const ns = req.namespace || contextNamespace(kc);
  const start = timeOf(req.start, 'start');
  const end = timeOf(req.end, 'end');
  try {
    const pods = await podsOf(kc, req, ns, ctx);
    let lines: LogLine[] = [];
    for (const pod of pods) {
      const names = (pod.spec?.containers ?? []).map((c) => c.name).filter((n) => !req.containers?.length || req.containers.some((g) => globRe(g).test(n)));
      for (const c of names) lines.push(...(await readLines(kc, pod, c, req, start, ctx)));
    }
    if (start !== undefined) lines = lines.filter((l) => Date.parse(l.timestamp) >= start - 1000);
    if (end !== undefined) lines = lines.filter((l) => Date.parse(l.timestamp) <= end);
    lines.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    const fields = spec.dedupe?.fields ?? [];
    if (fields.length) {
      const seen = new Set<string>();
      lines = lines.filter((l) => {
        const key = fields.map((f) => dedupeKey(l, f)).join('\u0000');
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }
    if (spec.match?.length) {
      lines = lines.filter((l) => spec.match!.some((expr) => {
        try {
          return evalCel(expr, { ...l }) === true;
        } catch (err) {
          throw new Error(`logs: match ${expr}: ${(err as Error).message}`);
        }
      }));
    }
    const truncated = lines.length > MAX_LINES;
    if (truncated) lines = lines.slice(-MAX_LINES);
    ctx.log('stdout', `${lines.length} line${lines.length === 1 ? '' : 's'} from ${pods.length} pod${pods.length === 1 ? '' : 's'} in ${ns}\n`);
    return { logs: lines, ...(truncated ? { truncated: true } : {}) };
  } catch (err) {
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    const message = errorText(err);
    throw new Error(message.startsWith('logs:') ? message : `logs: ${message}`);
  }
}

export const logsAction: PlaybookActionType = { type: 'logs', run: runLogs };
