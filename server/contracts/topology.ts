import { z } from 'zod';

// GET /api/topology (and GET /api/canary/api/topology, the reference's path): the component tree the topology cards
// read. Parameters and response as the reference (duty query/topology_options.go, reference/api.md "Topology").

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

/** A comma list where `!x` excludes x and `*` matches all (duty's matchItems). */
const itemList = z.string().transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean));
const bool = z.enum(['true', 'false']).transform((s) => s === 'true');

/** `k=v,k2=v2`: every pair needs a key and an `=`. */
const labelMap = z.string().transform((s, ctx) => {
  const out: Record<string, string> = {};
  for (const pair of s.split(',').map((p) => p.trim()).filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      ctx.addIssue({ code: 'custom', message: `labels: "${pair.slice(0, 64)}" is not key=value` });
      return z.NEVER;
    }
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
});

/** The query parameters; anything else in the query string (refererId, noCache) is ignored. */
export const TopologyQuery = z.object({
  id: z.string().regex(UUID, 'id: not a component id').transform((s) => s.toLowerCase()).optional(),
  owner: z.string().max(256).optional(),
  labels: labelMap.optional(),
  status: itemList.optional(),
  type: itemList.optional(),
  team: itemList.optional(),
  hidden: bool.optional(),
  agent_id: z.string().regex(/^(local|[0-9a-f-]{36})$/i, 'agent_id: not an agent id')
    .transform((s) => (s === 'local' ? LOCAL_AGENT : s.toLowerCase())).optional(),
  depth: z.string().regex(/^\d+$/, 'depth: a whole number from 1 to 10').transform(Number)
    .pipe(z.number().int().min(1, 'depth: from 1 to 10').max(10, 'depth: from 1 to 10')).default(5),
  flatten: bool.optional(),
  /** name, status (health: unhealthy, warning, healthy, info, unknown when desc), type, updated_at, or a property. */
  sortBy: z.string().regex(/^(name|status|type|updated_at|field:.+)$/, 'sortBy: name, status, type, updated_at or field:<property>').optional(),
  sortOrder: z.enum(['asc', 'desc'], { message: 'sortOrder: asc or desc' }).optional(),
});
export type TopologyQuery = z.infer<typeof TopologyQuery>;

/** `{healthy, unhealthy, warning, info, incidents, insights, checks}` as duty names them, rolled up the tree. */
export const ComponentSummary = z.object({
  healthy: z.number().optional(),
  unhealthy: z.number().optional(),
  warning: z.number().optional(),
  info: z.number().optional(),
  checks: z.record(z.string(), z.number()).optional(),
  incidents: z.record(z.string(), z.record(z.string(), z.number())).optional(),
  insights: z.record(z.string(), z.record(z.string(), z.number())).optional(),
});
export type ComponentSummary = z.infer<typeof ComponentSummary>;

export const ComponentProperty = z.object({
  name: z.string().optional(),
  label: z.string().optional(),
  text: z.string().optional(),
  value: z.number().optional(),
  unit: z.string().optional(),
  max: z.number().optional(),
  min: z.number().optional(),
  headline: z.boolean().optional(),
  type: z.string().optional(),
}).passthrough();

const ComponentFields = z.object({
  id: z.string(),
  name: z.string(),
  text: z.string().nullish(),
  type: z.string().nullish(),
  icon: z.string().nullish(),
  namespace: z.string().nullish(),
  labels: z.record(z.string(), z.string()).nullish(),
  status: z.string(),
  status_reason: z.string().nullish(),
  health: z.string().nullish(),
  hidden: z.boolean().optional(),
  parent_id: z.string().nullish(),
  topology_id: z.string().nullish(),
  agent_id: z.string().optional(),
  properties: z.array(ComponentProperty).nullish(),
  summary: ComponentSummary,
  team_names: z.array(z.string()).nullish(),
  created_at: z.string().optional(),
  updated_at: z.string().nullish(),
  deleted_at: z.string().nullish(),
}).passthrough();

/** A node: the component's columns (children two levels down carry fewer), its summary and its children. */
export type TopologyComponent = z.infer<typeof ComponentFields> & { components?: TopologyComponent[] };
export const TopologyComponent: z.ZodType<TopologyComponent> = ComponentFields.extend({
  components: z.lazy(() => z.array(TopologyComponent)).optional(),
});

export const TopologyResponse = z.object({
  components: z.array(TopologyComponent),
  healthStatuses: z.array(z.string()),
  teams: z.array(z.string()),
  tags: z.record(z.string(), z.array(z.string())),
  types: z.array(z.string()),
});
export type TopologyResponse = z.infer<typeof TopologyResponse>;
