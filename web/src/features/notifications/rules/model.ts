import { z } from 'zod';
import { NOTIFICATION_EVENTS, REPEAT_INTERVAL_OPTIONS } from '@contracts/notifications';
import { formatDurationNs, parseDurationNs } from '../../../lib/format';
import { VALIDATION_MESSAGES } from '../../../lib/validation';

/** A person or team as the summary embeds it. */
export const RulePerson = z.object({
  id: z.string(),
  name: z.string().nullish(),
  avatar: z.string().nullish(),
  email: z.string().nullish(),
  icon: z.string().nullish(),
});
export type RulePerson = z.infer<typeof RulePerson>;

const num = z.union([z.number(), z.string()]).nullish().transform((v) => (v === null || v === undefined || v === '' ? null : Number(v)));

/** An entry of `custom_services` as stored: a connection reference or a URL, properties, a filter. */
export const ServiceEntry = z.object({
  name: z.string().nullish(),
  connection: z.string().nullish(),
  url: z.string().nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  filter: z.string().nullish(),
});
export type ServiceEntry = z.infer<typeof ServiceEntry>;

/** One row of `notifications_summary` with its embeds (spec 001 §3 "Notification rule"). Lenient: views evolve. */
export const RuleRow = z.object({
  id: z.string(),
  name: z.string().nullish(),
  namespace: z.string().nullish(),
  title: z.string().nullish(),
  template: z.string().nullish(),
  events: z.array(z.string()).nullish(),
  filter: z.string().nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  person_id: z.string().nullish(),
  team_id: z.string().nullish(),
  custom_services: z.array(ServiceEntry).nullish(),
  repeat_interval: z.string().nullish(),
  wait_for: num,
  quiet_hours: z.object({
    timezone: z.string().nullish(), days: z.array(z.string()).nullish(), start: z.string(), end: z.string(), except: z.string().nullish(),
  }).nullish(),
  error: z.string().nullish(),
  error_at: z.string().nullish(),
  source: z.string().nullish(),
  sent: num,
  failed: num,
  pending: num,
  avg_duration_ms: num,
  most_common_error: z.string().nullish(),
  created_at: z.string().nullish(),
  person: RulePerson.nullish(),
  team: RulePerson.nullish(),
  created_by: z.union([RulePerson, z.string()]).nullish(),
});
export type RuleRow = z.infer<typeof RuleRow>;

const HOUR_MS = 3_600_000;

/** Spec 001 "Status": a rule whose filter failed within the hour is paused (error_at, the reference's 1 h). */
export function ruleStatus(rule: Pick<RuleRow, 'error' | 'error_at'>, now = Date.now()): 'Active' | 'Paused' {
  if (!rule.error) return 'Active';
  const at = rule.error_at ? Date.parse(rule.error_at) : NaN;
  return Number.isFinite(at) && now - at < HOUR_MS ? 'Paused' : 'Active';
}

/** CR rows are read-only here; UI or unset may be edited (spec 001 §4). */
export const isEditableSource = (source: string | null | undefined) => !source || source === 'UI';

export const RECIPIENT_KINDS = ['person', 'team', 'others'] as const;
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];

export const EVENT_OPTIONS = NOTIFICATION_EVENTS.map((e) => ({ value: e, label: e }));
export const REPEAT_OPTIONS = REPEAT_INTERVAL_OPTIONS.map((v) => ({ value: v, label: v }));

const serviceForm = z.object({
  target: z.enum(['connection', 'url']),
  connection: z.string(),
  url: z.string(),
  /** `key=value` per line. */
  properties: z.string(),
});
export type ServiceForm = z.infer<typeof serviceForm>;

/** Lines of `key=value` into an object; blank lines skipped; a line without `=` is an error. */
export function parseProperties(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return `Line ${i + 1}: write key=value`;
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

export function formatProperties(props: Record<string, unknown> | null | undefined): string {
  return Object.entries(props ?? {})
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('\n');
}

const propertiesText = z.string().superRefine((v, ctx) => {
  const parsed = parseProperties(v);
  if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
});

const HHMM = /^([01]?\d|2[0-3]):[0-5]\d$/;

/** Days of the week as quiet hours store them. */
export const QUIET_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** Whether the runtime knows the timezone (as the server's Intl does). */
export function validTimezone(tz: string): boolean {
  if (!tz) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The Create / Edit Notification form. */
export const ruleFormSchema = z
  .object({
    name: z.string().trim().min(1, VALIDATION_MESSAGES.required),
    events: z.array(z.string()).min(1, VALIDATION_MESSAGES.required),
    filter: z.string(),
    recipient: z.enum(RECIPIENT_KINDS),
    person_id: z.string(),
    team_id: z.string(),
    services: z.array(serviceForm.extend({ properties: propertiesText })),
    repeat_interval: z.string(),
    wait_for: z.string(),
    title: z.string(),
    templateMode: z.enum(['default', 'custom']),
    template: z.string(),
    properties: propertiesText,
    quiet: z.boolean(),
    quiet_timezone: z.string(),
    quiet_days: z.array(z.string()),
    quiet_start: z.string(),
    quiet_end: z.string(),
    quiet_except: z.string(),
  })
  .superRefine((v, ctx) => {
    if (v.quiet) {
      for (const f of ['quiet_start', 'quiet_end'] as const) {
        if (!HHMM.test(v[f].trim())) ctx.addIssue({ code: 'custom', path: [f], message: 'A time such as 22:00' });
      }
      if (v.quiet_start.trim() && v.quiet_start.trim() === v.quiet_end.trim()) ctx.addIssue({ code: 'custom', path: ['quiet_end'], message: 'The end must differ from the start' });
      if (!validTimezone(v.quiet_timezone.trim())) ctx.addIssue({ code: 'custom', path: ['quiet_timezone'], message: 'An IANA timezone such as Europe/Berlin' });
    }
    if (v.recipient === 'person' && !v.person_id) ctx.addIssue({ code: 'custom', path: ['person_id'], message: VALIDATION_MESSAGES.required });
    if (v.recipient === 'team' && !v.team_id) ctx.addIssue({ code: 'custom', path: ['team_id'], message: VALIDATION_MESSAGES.required });
    if (v.recipient === 'others') {
      if (!v.services.length) ctx.addIssue({ code: 'custom', path: ['services'], message: 'Add at least one service' });
      v.services.forEach((s, i) => {
        const key = s.target === 'connection' ? 'connection' : 'url';
        if (!s[key].trim()) ctx.addIssue({ code: 'custom', path: ['services', i, key], message: VALIDATION_MESSAGES.required });
      });
    }
    if (v.wait_for) {
      const ns = parseDurationNs(v.wait_for);
      if (Number.isNaN(ns)) ctx.addIssue({ code: 'custom', path: ['wait_for'], message: VALIDATION_MESSAGES.duration });
      else if (ns < 60e9) ctx.addIssue({ code: 'custom', path: ['wait_for'], message: VALIDATION_MESSAGES.durationMin });
    }
    if (v.templateMode === 'custom' && !v.template.trim()) {
      ctx.addIssue({ code: 'custom', path: ['template'], message: VALIDATION_MESSAGES.required });
    }
  });
export type RuleForm = z.input<typeof ruleFormSchema>;

export const emptyService = (): ServiceForm => ({ target: 'connection', connection: '', url: '', properties: '' });

/** The form's values for a stored rule (or a new one). */
export function ruleFormValues(rule?: RuleRow | null): RuleForm {
  const services = (rule?.custom_services ?? []).map((s) => ({
    target: s.url && !s.connection ? ('url' as const) : ('connection' as const),
    connection: s.connection ?? '',
    url: s.url ?? '',
    properties: formatProperties(s.properties),
  }));
  return {
    name: rule?.name ?? '',
    events: rule?.events ?? [],
    filter: rule?.filter ?? '',
    recipient: rule?.team_id ? 'team' : services.length ? 'others' : 'person',
    person_id: rule?.person_id ?? '',
    team_id: rule?.team_id ?? '',
    services,
    repeat_interval: rule?.repeat_interval ?? '',
    wait_for: rule?.wait_for ? formatDurationNs(rule.wait_for) : '',
    title: rule?.title ?? '',
    templateMode: rule?.template ? 'custom' : 'default',
    template: rule?.template ?? '',
    properties: formatProperties(rule?.properties),
    quiet: !!rule?.quiet_hours,
    quiet_timezone: rule?.quiet_hours?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC',
    quiet_days: rule?.quiet_hours?.days ?? [],
    quiet_start: rule?.quiet_hours?.start ?? '22:00',
    quiet_end: rule?.quiet_hours?.end ?? '07:00',
    quiet_except: rule?.quiet_hours?.except ?? '',
  };
}

/** What POST / PATCH /api/db/notifications receive: one recipient kind, the others null (spec 001 §7). */
export function ruleWriteBody(v: RuleForm) {
  const props = parseProperties(v.properties);
  const services = v.services.map((s) => {
    const p = parseProperties(s.properties);
    const entry: Record<string, unknown> = s.target === 'connection' ? { connection: s.connection.trim() } : { url: s.url.trim() };
    if (typeof p !== 'string' && Object.keys(p).length) entry.properties = p;
    return entry;
  });
  const orNull = (s: string) => (s.trim() ? s.trim() : null);
  return {
    name: v.name.trim(),
    events: v.events,
    filter: orNull(v.filter),
    person_id: v.recipient === 'person' ? orNull(v.person_id) : null,
    team_id: v.recipient === 'team' ? orNull(v.team_id) : null,
    custom_services: v.recipient === 'others' ? services : null,
    repeat_interval: orNull(v.repeat_interval),
    wait_for: v.wait_for.trim() ? parseDurationNs(v.wait_for) : null,
    title: orNull(v.title),
    template: v.templateMode === 'custom' ? v.template : null,
    properties: typeof props === 'string' || !Object.keys(props).length ? null : props,
    quiet_hours: v.quiet
      ? {
        timezone: v.quiet_timezone.trim(), start: v.quiet_start.trim(), end: v.quiet_end.trim(),
        ...(v.quiet_days.length ? { days: v.quiet_days } : {}), ...(v.quiet_except.trim() ? { except: v.quiet_except.trim() } : {}),
      }
      : null,
  };
}

const FORM_FIELDS: Record<string, string> = {
  name: 'name', events: 'events', filter: 'filter', person_id: 'person_id', team_id: 'team_id',
  custom_services: 'services', repeat_interval: 'repeat_interval', wait_for: 'wait_for', title: 'title',
  template: 'template', properties: 'properties', quiet_hours: 'quiet_start',
};

const PATH = /^([a-z_]+)(?:\[(\d+)\])?(?:\.([a-z_]+))?/i;

/** The form field behind a server path: `custom_services[0].url` is that service's URL; null for no field here. */
export function formFieldOf(path: string): string | null {
  const m = PATH.exec(path.trim());
  const field = m ? FORM_FIELDS[m[1]] : undefined;
  if (!m || !field) return null;
  if (m[1] === 'quiet_hours' && m[3] && ['timezone', 'days', 'start', 'end', 'except'].includes(m[3])) return `quiet_${m[3]}`;
  if (field === 'services' && m[2] !== undefined) {
    const sub = m[3] === 'connection' || m[3] === 'properties' ? m[3] : 'url';
    return `services.${m[2]}.${sub}`;
  }
  return field;
}

/**
 * The fields a server 400 names, each with its message: from `details` (`{path: message}` per problem, or
 * `{path}`), else from the message ("invalid notification: events[1]: unknown event …"). Empty when none is a field
 * of the form.
 */
export function serverFieldErrors(message: string, details?: unknown): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  if (details && typeof details === 'object' && !Array.isArray(details)) {
    const d = details as Record<string, unknown>;
    const entries = typeof d.path === 'string' ? [[d.path, message] as const] : Object.entries(d);
    for (const [path, msg] of entries) {
      const field = formFieldOf(path);
      if (field && !out.some((o) => o.field === field)) out.push({ field, message: typeof msg === 'string' ? msg : message });
    }
    if (out.length) return out;
  }
  const m = /(?:^|:\s+)([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+)?):\s+(.*)$/i.exec(message);
  const field = m ? formFieldOf(m[1]) : null;
  return field && m ? [{ field, message: m[2] }] : [];
}

/** The first field a server 400 names (see serverFieldErrors); null when none. */
export function serverErrorField(message: string, details?: unknown): string | null {
  return serverFieldErrors(message, details)[0]?.field ?? null;
}

/** `3m`, `1h` for stored nanoseconds; blank when unset. */
export const waitForText = (ns: number | null | undefined) => (ns ? formatDurationNs(ns) : '');

/** The server sort column behind a table column id. */
export const RULE_SORT_COLUMNS: Record<string, string> = {
  name: 'name', filter: 'filter', status: 'error_at', sent: 'sent', failed: 'failed', pending: 'pending',
  avg_duration_ms: 'avg_duration_ms', repeat_interval: 'repeat_interval', wait_for: 'wait_for', created_at: 'created_at',
};
