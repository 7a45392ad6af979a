import { formatDuration, toDate } from '../../../lib/format';

/**
 * Playbook runs as the screens show them (issue 14, spec 001 §"Playbook screens" and line ~126). Pure functions, no
 * React: statuses, the steps list (with the synthetic 'Initialization' step), times, and the downloaded log text.
 */

/** Every run status the engine writes (`pending_approval` is the spec's "pending"). */
export const RUN_STATUSES = [
  'pending_approval', 'scheduled', 'running', 'sleeping', 'waiting', 'retrying',
  'completed', 'failed', 'cancelled', 'timed_out',
] as const;

/** A run in one of these does not change again: no Cancel, no live log. */
export const FINAL_RUN_STATUSES = new Set(['completed', 'failed', 'cancelled', 'timed_out']);
/** An action in one of these has its output stored in its result. */
export const FINAL_ACTION_STATUSES = new Set(['completed', 'failed', 'skipped', 'cancelled', 'timed_out']);

export const isFinalRun = (status: string) => FINAL_RUN_STATUSES.has(status);

/** A run's or action's elapsed time: end − start, or now − start while it runs; empty before it starts. */
export function durationText(start: string | null | undefined, end: string | null | undefined, now = Date.now()): string {
  const s = toDate(start);
  if (!s) return '';
  const e = toDate(end);
  const ms = (e ? e.getTime() : now) - s.getTime();
  return ms >= 0 ? formatDuration(ms) : '';
}

/** A sleeping action's wake-up, as the spec writes it: "scheduled in 3m" (or "scheduled now" once due). */
export function scheduledIn(time: string | null | undefined, now = Date.now()): string {
  const d = toDate(time);
  if (!d) return 'scheduled';
  const ms = d.getTime() - now;
  if (ms < 1_000) return 'scheduled now';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `scheduled in ${Math.floor(ms / 1_000)}s`;
  if (minutes < 60) return `scheduled in ${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return `scheduled in ${hours}h${minutes % 60 ? ` ${minutes % 60}m` : ''}`;
}

/** The fields of an action the steps list needs. */
export interface StepAction {
  id: string;
  name: string;
  status: string;
  start_time?: string | null;
  end_time?: string | null;
  scheduled_time?: string | null;
  error?: string | null;
  result?: unknown;
  playbook_run_id?: string;
}

/** The id of the synthetic step a run error without actions shows as. */
export const INITIALIZATION_ID = 'initialization';

/**
 * The steps the detail lists: the run's actions in order, or, when the run failed before any action with an
 * error, one synthetic step 0 'Initialization' carrying that error.
 */
export function runSteps(
  run: { status: string; error?: string | null; start_time?: string | null; created_at: string; end_time?: string | null },
  actions: StepAction[],
): StepAction[] {
  if (actions.length === 0 && run.error) {
    return [{
      id: INITIALIZATION_ID, name: 'Initialization', status: 'failed', error: run.error,
      start_time: run.start_time ?? run.created_at, end_time: run.end_time ?? null,
    }];
  }
  return actions;
}

/** Skipped actions have nothing to show: the list does not make them selectable. */
export const isSelectable = (action: StepAction) => action.status !== 'skipped';

/** The parameter values as the Params dialog shows them: secrets (by the spec's parameter types) as `***`. */
export function displayParams(
  params: Record<string, unknown> | null | undefined,
  spec: unknown,
): Array<{ name: string; label: string; value: string }> {
  const defs = parameterDefs(spec);
  return Object.entries(params ?? {}).map(([name, value]) => {
    const def = defs.get(name);
    const secret = def?.type === 'secret';
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return { name, label: def?.label || name, value: secret ? '***' : text };
  });
}

function parameterDefs(spec: unknown): Map<string, { type?: string; label?: string }> {
  const out = new Map<string, { type?: string; label?: string }>();
  const list = (spec as { parameters?: unknown } | null | undefined)?.parameters;
  if (!Array.isArray(list)) return out;
  for (const p of list) {
    if (p && typeof p === 'object' && typeof (p as { name?: unknown }).name === 'string') {
      const { name, type, label } = p as { name: string; type?: unknown; label?: unknown };
      out.set(name, { type: typeof type === 'string' ? type : undefined, label: typeof label === 'string' ? label : undefined });
    }
  }
  return out;
}

/** An action's output as stored in its result: `stdout`, `stderr`, `logs` (logs actions) or the result as JSON. */
export function resultOutput(result: unknown): { stdout: string; stderr: string } {
  if (result === null || result === undefined) return { stdout: '', stderr: '' };
  if (typeof result === 'string') return { stdout: result, stderr: '' };
  if (typeof result !== 'object') return { stdout: String(result), stderr: '' };
  const r = result as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v, null, 2));
  if ('stdout' in r || 'stderr' in r) return { stdout: text(r.stdout), stderr: text(r.stderr) };
  if ('logs' in r) return { stdout: text(r.logs), stderr: '' };
  return { stdout: '', stderr: '' };
}

/** One printed line of an action, stored or streamed (`seq` orders an action's lines). */
export interface LogLine {
  action_id: string;
  seq: number;
  stream: string;
  text: string;
}

/**
 * The text file "Download logs" saves: for each step its name, status and times, then its output (the streamed
 * lines when there are any, else the stored stdout/stderr), its error, and its result when it is not plain output.
 */
export function logsFileText(
  run: { id: string; status: string; playbookName: string; error?: string | null },
  steps: StepAction[],
  lines: ReadonlyMap<string, LogLine[]>,
): string {
  const out: string[] = [`Playbook: ${run.playbookName}`, `Run: ${run.id}`, `Status: ${run.status}`];
  if (run.error) out.push(`Error: ${run.error}`);
  for (const step of steps) {
    out.push('', `=== ${step.name} (${step.status})${step.start_time ? ` started ${step.start_time}` : ''}${step.end_time ? `, ended ${step.end_time}` : ''}`);
    const streamed = lines.get(step.id) ?? [];
    const stored = resultOutput(step.result);
    if (streamed.length) for (const l of streamed) out.push(stripAnsi(lineText(l.text)));
    else {
      if (stored.stdout) out.push(stripAnsi(stored.stdout).replace(/\n$/, ''));
      if (stored.stderr) out.push('--- stderr', stripAnsi(stored.stderr).replace(/\n$/, ''));
    }
    if (step.error) out.push(`Error: ${step.error}`);
    if (!stored.stdout && !stored.stderr && step.result !== null && step.result !== undefined) {
      out.push('--- result', JSON.stringify(step.result, null, 2));
    }
  }
  return `${out.join('\n')}\n`;
}

/** A stored line's text without its line ending (the engine stores each line with its newline). */
export const lineText = (text: string) => text.replace(/\r?\n$/, '');

/** The download's file name: `<playbook>-<run id>.log`, the name reduced to safe characters. */
export function logsFileName(playbookName: string, runId: string): string {
  const safe = playbookName.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'playbook';
  return `${safe}-${runId}.log`;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Text without its terminal escape sequences (the downloaded file is plain text). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Merges new lines into an action's sorted, de-duplicated list (by seq); returns the same array when nothing changed. */
export function mergeLines(current: LogLine[], incoming: LogLine[]): LogLine[] {
  if (incoming.length === 0) return current;
  const seen = new Set(current.map((l) => l.seq));
  const fresh = incoming.filter((l) => !seen.has(l.seq) && (seen.add(l.seq), true));
  if (fresh.length === 0) return current;
  const next = current.concat(fresh);
  const last = current.length ? current[current.length - 1].seq : -Infinity;
  if (fresh.every((l, i) => l.seq > (i ? fresh[i - 1].seq : last))) return next;
  return next.sort((a, b) => a.seq - b.seq);
}

/** The resource a run ran on, as a name and the page that shows it: a check, a catalog item or a component. */
export function runResource(run: {
  check?: { id: string; name?: string | null } | null;
  config?: { id: string; name?: string | null } | null;
  component?: { id: string; name?: string | null } | null;
  check_id?: string | null;
  config_id?: string | null;
  component_id?: string | null;
}): { kind: 'check' | 'config' | 'component'; name: string; href: string } | null {
  if (run.check_id || run.check) {
    const id = run.check?.id ?? run.check_id ?? '';
    return { kind: 'check', name: run.check?.name || id, href: `/health?checkId=${encodeURIComponent(id)}` };
  }
  if (run.config_id || run.config) {
    const id = run.config?.id ?? run.config_id ?? '';
    return { kind: 'config', name: run.config?.name || id, href: `/catalog/${encodeURIComponent(id)}` };
  }
  if (run.component_id || run.component) {
    const id = run.component?.id ?? run.component_id ?? '';
    return { kind: 'component', name: run.component?.name || id, href: `/topology/${encodeURIComponent(id)}` };
  }
  return null;
}

/**
 * Whether to offer Approve to this user: the run's spec lists them (by email or id), or lists teams (membership is
 * the server's to check: it answers 403 to a non-member). Approvers and admins alike go through the server's check.
 */
export function mayApprove(spec: unknown, user: { id: string; email: string | null }): boolean {
  const approvers = (spec as { approval?: { approvers?: { people?: unknown; teams?: unknown } } } | null | undefined)?.approval?.approvers;
  if (!approvers) return false;
  const people = Array.isArray(approvers.people) ? approvers.people.map((p) => String(p).toLowerCase()) : [];
  const teams = Array.isArray(approvers.teams) ? approvers.teams : [];
  if (people.includes(user.id.toLowerCase())) return true;
  if (user.email && people.includes(user.email.toLowerCase())) return true;
  return teams.length > 0;
}

/** The parameters a re-run starts from: the run's values, without the secrets (stored masked, they must be typed again). */
export function rerunParams(params: Record<string, unknown> | null | undefined, spec: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const secret = new Set(displayParams(params, spec).filter((p) => p.value === '***').map((p) => p.name));
  for (const [k, v] of Object.entries(params ?? {})) if (!secret.has(k) && v !== '***') out[k] = v;
  return out;
}
