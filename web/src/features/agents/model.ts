import { z } from 'zod';
import { requiredText } from '../../lib/validation';

/** Spec 000 §9: an agent is Online while its last ping is within 61 seconds. */
export const AGENT_ONLINE_MS = 61_000;
/** How often the list and the install dialog re-evaluate Online/Offline without a new fetch. */
export const STATUS_TICK_MS = 5_000;
/** The all-zero id: this console's own "local" agent, not a remote one (never listed, never edited). */
export const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000';

/** Spec 000 §9: the agents page's page sizes (default 50). */
export const AGENT_PAGE_SIZE = 50;
export const AGENT_PAGE_SIZES = [50, 100, 200] as const;

/** Spec 000 §9: the Kubernetes scrape interval options, 30m by default. */
export const SCRAPE_INTERVALS = ['1m', '5m', '10m', '30m', '1h', '2h', '6h', '12h', '24h'] as const;
export const DEFAULT_SCRAPE_INTERVAL = '30m';

const Person = z.object({ id: z.string(), name: z.string().nullish(), avatar: z.string().nullish(), email: z.string().nullish() });
const Count = z.coerce.number().nullish();

/** One row of agents_summary with `created_by` embedded (schema.md "agents_summary"). */
export const AgentSummary = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  last_seen: z.string().nullish(),
  last_received: z.string().nullish(),
  config_count: Count,
  checks_count: Count,
  config_scrapper_count: Count,
  playbook_runs_count: Count,
  // the list embeds the person; a read without the embed (?id=eq.) carries the id
  created_by: z.union([Person, z.string()]).nullish(),
});
export type AgentSummary = z.infer<typeof AgentSummary>;

/** `POST /api/agent/generate` → 201 (api.md "Agents"); `agent_id` is this console's addition. */
export const GeneratedAgent = z.object({
  id: z.string(),
  username: z.string().nullish(),
  access_token: z.string(),
  agent_id: z.string().nullish(),
});
export type GeneratedAgent = z.infer<typeof GeneratedAgent>;

/** `GET /api/agent/install`: where an agent finds this console and its chart. */
export const InstallInfo = z.object({
  upstreamUrl: z.string(),
  chartRepoUrl: z.string(),
  chartName: z.string(),
  chartVersion: z.string().nullish(),
});
export type InstallInfo = z.infer<typeof InstallInfo>;

/** One ping's telemetry (agent_telemetry), for the editor's 24 h timeline. */
export const TelemetryPoint = z.object({
  time: z.string(),
  push_lag_ms: z.coerce.number().nullish(),
  buffer_rows: z.coerce.number().nullish(),
  dropped_rows: z.coerce.number().nullish(),
});
export type TelemetryPoint = z.infer<typeof TelemetryPoint>;

export type AgentStatus = 'Online' | 'Offline';

/** Online if `last_seen` is within 61 s of `now`, else Offline (never seen is Offline). */
export function agentStatus(lastSeen: string | null | undefined, now = Date.now()): AgentStatus {
  const t = lastSeen ? Date.parse(lastSeen) : NaN;
  return Number.isFinite(t) && now - t < AGENT_ONLINE_MS ? 'Online' : 'Offline';
}

/** The list columns the server can sort by (the column id is the agents_summary column). */
export const SORTABLE = new Set([
  'name',
  'config_count',
  'checks_count',
  'config_scrapper_count',
  'playbook_runs_count',
  'last_seen',
  'last_received',
  'created_at',
  'updated_at',
]);

export interface AgentListParams {
  sortBy: string;
  desc: boolean;
  pageIndex: number;
  pageSize: number;
}

/**
 * The reference client's list query: `order=created_at.desc` first, then the user's order (PostgREST-style
 * repeated `order`: the later one wins), `limit` and `offset`. The local agent is left out: it is this console.
 */
export function agentListQuery(p: AgentListParams) {
  const sortBy = SORTABLE.has(p.sortBy) ? p.sortBy : 'created_at';
  return {
    select: '*,created_by(id,name,avatar,email)',
    id: `neq.${LOCAL_AGENT_ID}`,
    order: ['created_at.desc', `${sortBy}.${p.desc ? 'desc' : 'asc'}`],
    limit: p.pageSize,
    offset: p.pageIndex * p.pageSize,
  };
}

// Control characters are refused by the server too (issue 16 "Bad input"); said here before the request.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const Property = z.object({ key: z.string().trim(), value: z.string() });

/** Properties as the form edits them: rows of key and value; keys must be set and unique. */
export const PropertiesInput = z.array(Property).superRefine((rows, ctx) => {
  const seen = new Set<string>();
  rows.forEach((r, i) => {
    if (!r.key) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: 'Enter a key or remove the row' });
    else if (seen.has(r.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `Key ${r.key} is already used` });
    seen.add(r.key);
  });
});

/** The "Create new agent" form (spec 000 §3 "Agent" form values). */
export const AgentCreateInput = z.object({
  name: requiredText()
    .max(255, 'Name must be 255 characters or fewer')
    .refine((v) => !CONTROL.test(v), 'Name must not contain control characters'),
  properties: PropertiesInput,
  kubernetesEnabled: z.boolean(),
  scrapeInterval: z.enum(SCRAPE_INTERVALS),
  telemetryEnabled: z.boolean(),
  topologyName: z.string().trim(),
}).superRefine((v, ctx) => {
  if (v.telemetryEnabled && !v.topologyName) ctx.addIssue({ code: 'custom', path: ['topologyName'], message: 'Enter a topology name to push telemetry' });
});
export type AgentCreateInput = z.input<typeof AgentCreateInput>;
export type AgentCreateValues = z.output<typeof AgentCreateInput>;

export const AgentEditInput = z.object({ name: z.string(), properties: PropertiesInput });
export type AgentEditInput = z.input<typeof AgentEditInput>;

export const CREATE_DEFAULTS: AgentCreateInput = {
  name: '',
  properties: [],
  kubernetesEnabled: true,
  scrapeInterval: DEFAULT_SCRAPE_INTERVAL,
  telemetryEnabled: false,
  topologyName: '',
};

/** Form rows → the `properties` map the API takes (string values only, as the server requires). */
export function toProperties(rows: readonly { key: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => r.key.trim()).map((r) => [r.key.trim(), r.value]));
}

/** A stored `properties` map → form rows (non-string values shown as JSON). */
export function toRows(properties: Record<string, unknown> | null | undefined): { key: string; value: string }[] {
  return Object.entries(properties ?? {}).map(([key, v]) => ({ key, value: typeof v === 'string' ? v : JSON.stringify(v) }));
}

/** The install dialog's snippet options (install-snippets.ts `helmCommand` / `fluxManifests`). */
export function snippetOptions(values: AgentCreateValues, token: string, info: InstallInfo) {
  return {
    name: values.name,
    token,
    upstreamUrl: info.upstreamUrl,
    chartRepoUrl: info.chartRepoUrl,
    chartName: info.chartName,
    chartVersion: info.chartVersion ?? null,
    kubernetes: { enabled: values.kubernetesEnabled, scrapeInterval: values.scrapeInterval },
    telemetry: { enabled: values.telemetryEnabled, topologyName: values.topologyName },
  };
}

/** Timeline bands: runs of Online/Offline over [from, to], from ping times (a gap over 61 s is Offline). */
export function statusBands(pings: readonly number[], from: number, to: number): { start: number; end: number; status: AgentStatus }[] {
  const bands: { start: number; end: number; status: AgentStatus }[] = [];
  const push = (start: number, end: number, status: AgentStatus) => {
    if (end <= start) return;
    const last = bands[bands.length - 1];
    if (last && last.status === status && last.end >= start) last.end = end;
    else bands.push({ start, end, status });
  };
  let cursor = from;
  for (const t of [...pings].sort((a, b) => a - b)) {
    if (t + AGENT_ONLINE_MS <= from || t > to) continue; // a ping just before `from` still covers its start
    push(cursor, Math.max(cursor, t), 'Offline');
    const end = Math.min(t + AGENT_ONLINE_MS, to);
    push(Math.max(cursor, t), end, 'Online');
    cursor = Math.max(cursor, end);
  }
  push(cursor, to, 'Offline');
  return bands;
}
