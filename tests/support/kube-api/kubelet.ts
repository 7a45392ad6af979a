import type { ServerResponse } from 'node:http';
import { runContainer } from './exec.js';
import { isObject, type JsonObject } from './patch.js';
import { fail, type Result, type Store } from './store.js';
import { storageKey, type KubeObject, type ResourceDef } from './types.js';

/**
 * A stand-in kubelet for `startKubeApi({ podLifecycle: true })`: a new pod is `Pending` (containers waiting,
 * ContainerCreating), then `Running` (its containers started), and each container's `command` + `args` run in the
 * test container's small command language (exec.ts: echo, sleep, exit, sh -c 'a; b'…). Output lines are kept with
 * their times as the container's log; when every container has ended the pod is `Succeeded` (all exited 0) or
 * `Failed`, with `terminated` states (exitCode, reason Completed/Error). A container without a command keeps running
 * until the pod is deleted. Deleting a pod ends its processes (a `sleep` returns) and its log followers.
 *
 * `GET pods/{name}/log` (any pod, lifecycle or not) answers as the kubelet does: `container` (required when the pod
 * has several), `follow`, `timestamps` (RFC 3339 with nanoseconds), `sinceSeconds`, `sinceTime`, `tailLines`,
 * `limitBytes`; 400 while the container is waiting to start.
 */

interface LogLine {
  /** RFC 3339 with nanoseconds, as the kubelet writes it. */
  time: string;
  ms: number;
  text: string;
}

interface ContainerLog {
  lines: LogLine[];
  /** The partial line not yet ended by a newline. */
  partial: { out: string; err: string };
  ended: boolean;
  followers: Set<(line: LogLine | null) => void>;
}

const STARTUP_MS = 100;

function nanoTime(d = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, (_, ms: string) => `.${ms}000000Z`);
}

const secondsTime = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export class Kubelet {
  private readonly logs = new Map<string, ContainerLog>();
  /** pod key → resolves the pod's `gone` */
  private readonly running = new Map<string, () => void>();

  constructor(private readonly store: Store, private readonly enabled: boolean) {
    if (!enabled) return;
    const def = this.podDef();
    store.podsStartPending = true;
    store.watchers.add({
      key: storageKey(def),
      def,
      matches: () => true,
      send: (type, obj) => {
        if (type === 'ADDED' && (obj.status as JsonObject | undefined)?.phase === 'Pending') this.start(obj);
        if (type === 'DELETED') this.stop(obj);
      },
      close: () => {},
    });
  }

  /** Ends every process and follower (the server stops). */
  closeAll(): void {
    for (const stop of this.running.values()) stop();
    this.running.clear();
    for (const log of this.logs.values()) this.end(log);
  }

  /** Adds output to a container's log directly (pods of tests without the lifecycle). */
  append(namespace: string, pod: string, container: string, text: string, stream: 'out' | 'err' = 'out'): void {
    this.write(this.log(namespace, pod, container), stream, text);
  }

  /** GET pods/{name}/log */
  serve(res: ServerResponse, pod: KubeObject, q: URLSearchParams): Result | undefined {
    const containers = ((pod.spec as JsonObject | undefined)?.containers as JsonObject[] | undefined) ?? [];
    const names = containers.map((c) => String(c.name));
    const name = pod.metadata.name;
    let container = q.get('container') ?? '';
    if (!container) {
      if (names.length !== 1) return fail(400, 'BadRequest', `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]`);
      container = names[0];
    }
    if (!names.includes(container)) return fail(400, 'BadRequest', `container ${container} is not valid for pod ${name}`);
    const status = (pod.status as JsonObject | undefined) ?? {};
    const cs = ((status.containerStatuses as JsonObject[] | undefined) ?? []).find((c) => c.name === container);
    const waiting = isObject(cs?.state as JsonObject) ? ((cs!.state as JsonObject).waiting as JsonObject | undefined) : undefined;
    if (status.phase === 'Pending' || waiting) {
      return fail(400, 'BadRequest', `container "${container}" in pod "${name}" is waiting to start: ${waiting?.reason ?? 'ContainerCreating'}`);
    }
    const log = this.log(pod.metadata.namespace ?? 'default', name, container);
    const timestamps = q.get('timestamps') === 'true';
    const sinceSeconds = Number(q.get('sinceSeconds') ?? NaN);
    const sinceTime = q.get('sinceTime') ? Date.parse(q.get('sinceTime')!) : NaN;
    const since = Number.isFinite(sinceSeconds) ? Date.now() - sinceSeconds * 1000 : Number.isFinite(sinceTime) ? sinceTime : -Infinity;
    let lines = log.lines.filter((l) => l.ms >= since);
    const tail = Number(q.get('tailLines') ?? NaN);
    if (Number.isInteger(tail) && tail >= 0) lines = tail === 0 ? [] : lines.slice(-tail);
    let budget = Number(q.get('limitBytes') ?? NaN);
    if (!Number.isFinite(budget) || budget <= 0) budget = Infinity;
    const format = (l: LogLine) => (timestamps ? `${l.time} ${l.text}` : l.text);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    const put = (l: LogLine): boolean => {
      const text = format(l);
      if (budget <= 0) return false;
      const cut = Buffer.byteLength(text) > budget ? Buffer.from(text).subarray(0, budget).toString() : text;
      budget -= Buffer.byteLength(cut);
      res.write(cut);
      return budget > 0;
    };
    for (const l of lines) if (!put(l)) return void res.end();
    if (q.get('follow') !== 'true' || log.ended) return void res.end();
    const follower = (l: LogLine | null) => {
      if (!l || !put(l)) {
        log.followers.delete(follower);
        res.end();
      }
    };
    log.followers.add(follower);
    res.on('close', () => log.followers.delete(follower));
    return undefined;
  }

  private podDef(): ResourceDef {
    return this.store.def('', 'v1', 'pods')!;
  }

  private log(ns: string, pod: string, container: string): ContainerLog {
    const key = `${ns}/${pod}/${container}`;
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { lines: [], partial: { out: '', err: '' }, ended: false, followers: new Set() }));
    return log;
  }

  private write(log: ContainerLog, stream: 'out' | 'err', data: string): void {
    const text = log.partial[stream] + data;
    const parts = text.split('\n');
    log.partial[stream] = parts.pop()!;
    for (const p of parts) {
      const d = new Date();
      const line = { time: nanoTime(d), ms: d.getTime(), text: `${p}\n` };
      log.lines.push(line);
      for (const f of [...log.followers]) f(line);
    }
  }

  private end(log: ContainerLog): void {
    for (const s of ['out', 'err'] as const) if (log.partial[s]) this.write(log, s, '\n');
    log.ended = true;
    for (const f of [...log.followers]) f(null);
  }

  private setStatus(ns: string, name: string, change: (status: JsonObject) => void): void {
    const pod = this.store.getRaw('', 'pods', ns, name);
    if (!pod) return;
    const next = structuredClone(pod);
    const status = structuredClone((pod.status as JsonObject | undefined) ?? {});
    change(status);
    next.status = status;
    this.store.update(this.podDef(), ns, name, next, { subresource: 'status', rvChecked: true });
  }

  private start(pod: KubeObject): void {
    const ns = pod.metadata.namespace ?? 'default';
    const name = pod.metadata.name;
    const key = `${ns}/${name}`;
    let goneResolve!: () => void;
    const gone = new Promise<void>((r) => (goneResolve = r));
    this.running.set(key, goneResolve);
    const containers = ((pod.spec as JsonObject).containers as JsonObject[]);
    setTimeout(() => {
      if (!this.running.has(key)) return;
      // a test may have put the pod in a state a kubelet cannot leave (ErrImagePull...): it stays there
      const now = this.store.getRaw('', 'pods', ns, name);
      const waits = ((now?.status as JsonObject | undefined)?.containerStatuses as JsonObject[] | undefined) ?? [];
      if (waits.some((c) => ((c.state as JsonObject | undefined)?.waiting as JsonObject | undefined)?.reason !== undefined
        && ((c.state as JsonObject).waiting as JsonObject).reason !== 'ContainerCreating')) return;
      const at = secondsTime();
      this.setStatus(ns, name, (s) => {
        s.phase = 'Running';
        s.conditions = [{ type: 'Ready', status: 'True', lastTransitionTime: at }];
        s.podIP = `10.244.0.${1 + Math.floor(Math.random() * 254)}`;
        s.startTime = at;
        s.containerStatuses = containers.map((c) => ({
          name: c.name, image: c.image ?? '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: at } },
        }));
      });
      const results = containers.map(async (c) => {
        const argv = [...((c.command as string[] | undefined) ?? []), ...((c.args as string[] | undefined) ?? [])].map(String);
        const log = this.log(ns, name, String(c.name));
        if (!argv.length) {
          await gone;
          return 0;
        }
        const env = ((c.env as JsonObject[] | undefined) ?? []).map((e) => [String(e.name), String(e.value ?? '')] as [string, string]);
        const r = await runContainer(argv, {
          out: (d) => this.write(log, 'out', d),
          err: (d) => this.write(log, 'err', d),
          env: [['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], ['HOSTNAME', name], ...env],
          hostname: name,
          gone,
        });
        if (r.message) this.write(log, 'err', `${r.message}\n`);
        this.end(log);
        const end = secondsTime();
        if (this.running.has(key)) {
          this.setStatus(ns, name, (s) => {
            const list = (s.containerStatuses as JsonObject[]) ?? [];
            const cs = list.find((x) => x.name === c.name);
            if (cs) {
              cs.ready = false;
              cs.started = false;
              cs.state = { terminated: { exitCode: r.code, reason: r.code === 0 ? 'Completed' : 'Error', startedAt: at, finishedAt: end } };
            }
          });
        }
        return r.code;
      });
      void Promise.all(results).then((codes) => {
        if (!this.running.has(key)) return;
        this.running.delete(key);
        this.setStatus(ns, name, (s) => {
          s.phase = codes.every((c) => c === 0) ? 'Succeeded' : 'Failed';
          s.conditions = [{ type: 'Ready', status: 'False', lastTransitionTime: secondsTime(), reason: 'PodCompleted' }];
        });
      });
    }, STARTUP_MS);
  }

  private stop(pod: KubeObject): void {
    const key = `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
    const stop = this.running.get(key);
    this.running.delete(key);
    stop?.();
    for (const [k, log] of this.logs) if (k.startsWith(`${key}/`)) this.end(log);
  }
}
