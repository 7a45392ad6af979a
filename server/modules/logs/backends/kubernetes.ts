import { PassThrough } from 'node:stream';
import { Log } from '@kubernetes/client-node';
import type { LogLine } from '../../../contracts/logs.js';
import { guessSeverity } from '../severity.js';
import { BackendError, isAbort, type BackendContext, type BackendQuery, type LogBackend } from '../types.js';

/**
 * `kubernetes`: a pod's log from the console's cluster (client-node `Log`: GET pods/{name}/log with timestamps,
 * sinceTime = start, tailLines = limit when nothing else narrows it). The pod is the selector's `pod` label, else
 * the component's external_id (`namespace/name` or `name`); the namespace its `namespace` label, else the
 * external_id's, the backend's `namespace`, or `default`; the container the `container` label (required by the API
 * server when the pod has several). The log cannot be paged: the newest `limit` lines in range are answered.
 */

const NAME = 'kubernetes';

interface Target { namespace: string; pod: string; container: string }

function target(config: Record<string, unknown>, q: BackendQuery): Target {
  const [a, b] = q.externalId.includes('/') ? q.externalId.split('/', 2) : [undefined, q.externalId];
  const pod = q.labels.pod ?? b ?? '';
  const namespace = q.labels.namespace ?? a ?? (typeof config.namespace === 'string' && config.namespace ? config.namespace : 'default');
  if (!pod) throw new BackendError(NAME, 'no pod: the selector has no `pod` label and the component no external_id');
  return { namespace, pod, container: q.labels.container ?? '' };
}

function parse(raw: string, t: Target): LogLine {
  const sp = raw.indexOf(' ');
  const ts = sp > 0 ? Date.parse(raw.slice(0, sp)) : NaN;
  const message = Number.isNaN(ts) ? raw : raw.slice(sp + 1);
  const severity = guessSeverity(message);
  const labels: Record<string, string> = { namespace: t.namespace, pod: t.pod };
  if (t.container) labels.container = t.container;
  return { timestamp: new Date(Number.isNaN(ts) ? Date.now() : ts).toISOString(), message, labels, ...(severity ? { severity } : {}) };
}

/**
 * Opens the log stream; lines go to onLine. Resolves when the stream ends (or the signal aborts); rejects with a
 * BackendError when the API server refuses or does not answer in time.
 */
async function stream(ctx: BackendContext, t: Target, opts: { follow: boolean; sinceTime?: string; tailLines?: number }, signal: AbortSignal,
  onLine: (raw: string) => void): Promise<void> {
  if (!ctx.kube) throw new BackendError(NAME, 'the console has no Kubernetes cluster connection');
  const out = new PassThrough();
  let rest = '';
  out.setEncoding('utf8');
  out.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const p of parts) if (p) onLine(p);
  });
  const ended = new Promise<void>((resolve) => {
    out.on('end', resolve);
    out.on('close', resolve);
    out.on('error', () => resolve());
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BackendError(NAME, `no answer within ${ctx.timeoutMs / 1000}s`, true)), ctx.timeoutMs);
  });
  const started = new Log(ctx.kube).log(t.namespace, t.pod, t.container, out, {
    follow: opts.follow, timestamps: true, sinceTime: opts.sinceTime, tailLines: opts.tailLines,
  });
  let controller: AbortController;
  try {
    controller = await Promise.race([started, timeout]);
  } catch (err) {
    // a late answer still gets closed
    void started.then((c) => c.abort(), () => {});
    if (err instanceof BackendError) throw err;
    const code = (err as { code?: number }).code;
    throw new BackendError(NAME, `pod ${t.namespace}/${t.pod}${t.container ? ` container ${t.container}` : ''}: ${code === 404 ? 'not found' : `HTTP ${code ?? '?'}`}`);
  } finally {
    clearTimeout(timer);
  }
  const abort = () => {
    controller.abort();
    out.destroy();
  };
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    await ended;
    if (rest) onLine(rest);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

export const kubernetesBackend: LogBackend = {
  async *search(ctx, config, q) {
    const t = target(config, q);
    const narrowed = !!q.text || q.endMs < Date.now() - 1000;
    // newest `limit` lines in range: a ring, then newest first
    const keep: LogLine[] = [];
    await stream(ctx, t, { follow: false, sinceTime: new Date(q.startMs).toISOString(), tailLines: narrowed ? undefined : q.limit }, q.signal, (raw) => {
      const line = parse(raw, t);
      const ms = Date.parse(line.timestamp);
      if (ms < q.startMs || ms > q.endMs) return;
      if (q.text && !q.text.re.test(line.message)) return;
      keep.push(line);
      if (keep.length > q.limit) keep.shift();
    }).catch((err) => {
      if (isAbort(err, q.signal)) return;
      throw err;
    });
    keep.reverse();
    for (let i = 0; i < keep.length; i += ctx.batch) yield keep.slice(i, i + ctx.batch);
    return { total: keep.length };
  },

  async *follow(ctx, config, q, after) {
    const t = target(config, q);
    // from the newest line given (sinceTime has second precision on real API servers: repeats are skipped)
    const afterMs = after ? Date.parse(after.timestamp) : Date.now();
    const sinceTime = new Date(Math.floor(afterMs / 1000) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const skip = new Set(after ? [`${after.timestamp}\u0000${after.message}`] : []);
    let queue: LogLine[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    let failure: unknown = null;
    void stream(ctx, t, { follow: true, sinceTime }, q.signal, (raw) => {
      const line = parse(raw, t);
      const ms = Date.parse(line.timestamp);
      if (ms < afterMs || skip.has(`${line.timestamp}\u0000${line.message}`)) return;
      if (q.text && !q.text.re.test(line.message)) return;
      queue.push(line);
      wake?.();
    }).catch((err) => { if (!isAbort(err, q.signal)) failure = err; }).finally(() => { done = true; wake?.(); });
    const onAbort = () => wake?.();
    q.signal.addEventListener('abort', onAbort);
    try {
      while (!q.signal.aborted) {
        if (!queue.length && !done) await new Promise<void>((r) => { wake = r; });
        wake = null;
        if (queue.length) {
          const out = queue;
          queue = [];
          yield out;
        } else if (done) {
          if (failure) throw failure;
          return;
        }
      }
    } finally {
      q.signal.removeEventListener('abort', onAbort);
    }
  },
};
