import { z } from 'zod';
import { DURATION_OPTIONS } from '@contracts/notifications';
import { parseDurationNs } from '../../../lib/format';
import { VALIDATION_MESSAGES } from '../../../lib/validation';

const Named = z.object({ id: z.string(), name: z.string().nullish(), type: z.string().nullish(), icon: z.string().nullish() });
const Person = z.object({ id: z.string(), name: z.string().nullish(), avatar: z.string().nullish(), email: z.string().nullish() });

/** One row of notification_silences with the reference UI's embeds (spec 001 §3 "Notification silence"). */
export const SilenceRow = z.object({
  id: z.string(),
  name: z.string().nullish(),
  namespace: z.string().nullish(),
  description: z.string().nullish(),
  filter: z.string().nullish(),
  selectors: z.unknown().nullish(),
  from: z.string().nullish(),
  until: z.string().nullish(),
  recursive: z.boolean().nullish(),
  source: z.string().nullish(),
  check_id: z.string().nullish(),
  canary_id: z.string().nullish(),
  config_id: z.string().nullish(),
  component_id: z.string().nullish(),
  created_at: z.string().nullish(),
  checks: Named.nullish(),
  canary: Named.nullish(),
  config: Named.nullish(),
  component: Named.nullish(),
  createdBy: Person.nullish(),
});
export type SilenceRow = z.infer<typeof SilenceRow>;

/** Expired: `until` is past (spec 001 §4). An indefinite silence never expires. */
export function isExpired(s: Pick<SilenceRow, 'until'>, now = Date.now()): boolean {
  if (!s.until) return false;
  const t = Date.parse(s.until);
  return Number.isFinite(t) && t <= now;
}

/** What the Resource column says: the target's kind and name, else the filter or the selectors. */
export function silenceTarget(s: SilenceRow): { kind: string; name: string } {
  if (s.check_id) return { kind: 'Check', name: s.checks?.name ?? s.check_id };
  if (s.config_id) return { kind: 'Catalog', name: s.config?.name ?? s.config_id };
  if (s.component_id) return { kind: 'Component', name: s.component?.name ?? s.component_id };
  if (s.canary_id) return { kind: 'Canary', name: s.canary?.name ?? s.canary_id };
  if (s.filter) return { kind: 'Filter', name: s.filter };
  if (s.selectors && (!Array.isArray(s.selectors) || s.selectors.length)) return { kind: 'Selectors', name: JSON.stringify(s.selectors) };
  return { kind: '', name: '' };
}

const fmt = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** The Duration column: "from → until", "from → indefinitely". */
export function silenceDuration(s: Pick<SilenceRow, 'from' | 'until'>): string {
  const from = s.from ? fmt(s.from) : 'now';
  return `${from} → ${s.until ? fmt(s.until) : 'indefinitely'}`;
}

export const SILENCE_TABS = ['config', 'component', 'check'] as const;
export type SilenceTab = (typeof SILENCE_TABS)[number];
export const SILENCE_TAB_LABELS: Record<SilenceTab, string> = { config: 'Catalog', component: 'Component', check: 'Check' };

export const INDEFINITELY = 'indefinitely';
/** Duration choices as future ranges (spec 001 §9), or indefinitely. */
export const SILENCE_DURATIONS = [...DURATION_OPTIONS.map((d) => ({ value: d, label: `Next ${d}` })), { value: INDEFINITELY, label: 'Indefinitely' }];

export const TARGET_MODES = ['resource', 'filter', 'selectors'] as const;
export type TargetMode = (typeof TARGET_MODES)[number];

/** Selectors typed as JSON: a ResourceSelector or a list of them. */
export function parseSelectors(text: string): unknown[] | string {
  try {
    const v: unknown = JSON.parse(text);
    if (Array.isArray(v)) return v;
    if (v && typeof v === 'object') return [v];
    return 'Selectors must be a JSON object or a list of objects';
  } catch {
    return 'Selectors must be valid JSON, e.g. [{"types": ["Kubernetes::Pod"], "namespace": "default"}]';
  }
}

/** Add Silence: exactly one target (a resource, a filter, or selectors), spec 001 §3 and issue 15. */
export const silenceFormSchema = z
  .object({
    name: z.string(),
    duration: z.string().min(1, VALIDATION_MESSAGES.required),
    description: z.string(),
    mode: z.enum(TARGET_MODES),
    tab: z.enum(SILENCE_TABS),
    config_id: z.string(),
    component_id: z.string(),
    check_id: z.string(),
    canary_id: z.string(),
    recursive: z.boolean(),
    filter: z.string(),
    selectors: z.string(),
  })
  .superRefine((v, ctx) => {
    const problem = targetProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
  });
export type SilenceForm = z.input<typeof silenceFormSchema>;

/** What is missing from the chosen target (Preview needs only this, not a duration). */
export function targetProblem(
  v: Pick<SilenceForm, 'mode' | 'tab' | 'config_id' | 'component_id' | 'check_id' | 'canary_id' | 'filter' | 'selectors'>,
): { field: 'config_id' | 'component_id' | 'check_id' | 'filter' | 'selectors'; message: string } | null {
  if (v.mode === 'resource') {
    const id = v.tab === 'check' ? v.check_id || v.canary_id : v[`${v.tab}_id`];
    return id ? null : { field: `${v.tab}_id`, message: VALIDATION_MESSAGES.required };
  }
  if (v.mode === 'filter') return v.filter.trim() ? null : { field: 'filter', message: VALIDATION_MESSAGES.required };
  const parsed = v.selectors.trim() ? parseSelectors(v.selectors) : VALIDATION_MESSAGES.required;
  return typeof parsed === 'string' ? { field: 'selectors', message: parsed } : null;
}

/** The form for a link such as `?check_id=…` (the silence links of sent notifications). */
export function silenceFormDefaults(params: URLSearchParams): SilenceForm {
  const get = (k: string) => params.get(k) ?? '';
  const tab: SilenceTab = get('config_id') ? 'config' : get('component_id') ? 'component' : 'check';
  return {
    name: '',
    duration: '',
    description: '',
    mode: 'resource',
    tab,
    config_id: get('config_id'),
    component_id: get('component_id'),
    check_id: get('check_id'),
    canary_id: get('canary_id'),
    recursive: false,
    filter: '',
    selectors: '',
  };
}

/** The body of POST /api/notification/silence (api.md): one target, from now until now + duration or null. */
export function silenceBody(v: SilenceForm, now = Date.now()) {
  const body: Record<string, unknown> = {
    from: new Date(now).toISOString(),
    until: v.duration === INDEFINITELY ? null : new Date(now + parseDurationNs(v.duration) / 1e6).toISOString(),
  };
  if (v.name.trim()) body.name = v.name.trim();
  if (v.description.trim()) body.description = v.description.trim();
  Object.assign(body, silenceTargetParams(v));
  return body;
}

/** The target part of the body, also the preview's query (without the JSON encoding of selectors). */
export function silenceTargetParams(v: SilenceForm): Record<string, unknown> {
  if (v.mode === 'filter') return { filter: v.filter.trim() };
  if (v.mode === 'selectors') {
    const parsed = parseSelectors(v.selectors);
    return { selectors: typeof parsed === 'string' ? [] : parsed };
  }
  const out: Record<string, unknown> = { recursive: v.recursive };
  if (v.tab === 'check') {
    if (v.check_id) out.check_id = v.check_id;
    else if (v.canary_id) out.canary_id = v.canary_id;
  } else out[`${v.tab}_id`] = v[`${v.tab}_id`];
  return out;
}

/** GET /api/notification/silence_preview's query: `id` and `type` for a resource, or the filter / selectors. */
export function previewQuery(v: SilenceForm): Record<string, string> {
  const t = silenceTargetParams(v);
  if (v.mode === 'filter') return { filter: String(t.filter) };
  if (v.mode === 'selectors') return { selectors: JSON.stringify(t.selectors) };
  const [key] = Object.keys(t).filter((k) => k.endsWith('_id'));
  return key ? { id: String(t[key]), type: key.replace(/_id$/, ''), recursive: String(v.recursive) } : {};
}

/** Edit Notification Silence: reason and the end; empty until is indefinitely. */
export const editSilenceSchema = z.object({
  description: z.string(),
  until: z.string().refine((v) => !v || Number.isFinite(Date.parse(v)), 'Enter a date and time'),
});
export type EditSilenceForm = z.input<typeof editSilenceSchema>;

/** An ISO time as the value of an `<input type="datetime-local">` (local time, minutes). */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (!Number.isFinite(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const SILENCE_FIELDS: Record<string, keyof SilenceForm> = {
  name: 'name', description: 'description', from: 'duration', until: 'duration', filter: 'filter', selectors: 'selectors',
  check_id: 'check_id', canary_id: 'check_id', config_id: 'config_id', component_id: 'component_id', recursive: 'recursive',
};

/** The fields a server 400 on a silence names (`details` per path, else the message's first path). */
export function silenceFieldErrors(message: string, details?: unknown): { field: keyof SilenceForm; message: string }[] {
  const entries: [string, unknown][] =
    details && typeof details === 'object' && !Array.isArray(details) ? Object.entries(details as Record<string, unknown>) : [];
  const m = /(?:^|:\s+)([a-z_]+)(?:\[\d+\])?(?:\.[\w.]+)?:\s+(.*)$/i.exec(message);
  if (!entries.length && m) entries.push([m[1], m[2]]);
  const out: { field: keyof SilenceForm; message: string }[] = [];
  for (const [path, msg] of entries) {
    const field = SILENCE_FIELDS[/^[a-z_]+/i.exec(path)?.[0] ?? ''];
    if (field && !out.some((o) => o.field === field)) out.push({ field, message: typeof msg === 'string' ? msg : message });
  }
  return out;
}
