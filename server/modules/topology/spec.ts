import { z } from 'zod';
import { celSyntaxError } from '../../lib/cel.js';
import { parseSchedule } from '../health/schedule.js';
import { specPathText } from '../catalog/spec.js';
import { templateProblem } from './runner/templates.js';

/**
 * The Topology spec (canary-checker api/v1/topology.go, component.go) as the server judges it: the typed shape
 * (it generates the CRD's schema and the editor's JSON Schema) plus what a shape cannot say: the schedule parses,
 * healthExpr/statusExpr compile as CEL, and templates in names, ids and forEach are field references only
 * (`{{.name}}`, `{{.properties.x}}`, `$(.name)`). Each problem names its dotted path
 * (`spec.components.1.forEach.components.0.name`), as every spec problem of the product does. Unknown fields are kept.
 */

type Path = (string | number)[];
export interface SpecProblem { path: Path; message: string }
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** An open-ended block whose inner fields the runner hands on (lookups are canary specs; H2's runner judges them). */
const Block = z.object({}).loose();
const StringMap = z.record(z.string(), z.string());

/** The reference's Template: a `template` (here: field references only), or jsonPath/expr/javascript (kept, not run). */
export const TemplateSpec = z.object({
  template: z.string().optional(),
  jsonPath: z.string().optional(),
  expr: z.string().optional(),
  javascript: z.string().optional(),
}).loose();

const Link = z.object({
  label: z.string().optional(), url: z.string().optional(), type: z.string().optional(), icon: z.string().optional(),
  text: z.string().optional(), tooltip: z.string().optional(),
}).loose();

/** A property: static fields, or a `lookup` (a canary spec) / `configLookup` that yields them. */
export const PropertySpec = z.object({
  name: z.string().optional(),
  label: z.string().optional(),
  text: z.string().optional(),
  value: z.number().optional(),
  unit: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  headline: z.boolean().optional(),
  type: z.string().optional(),
  color: z.string().optional(),
  order: z.number().int().optional(),
  tooltip: z.string().optional(),
  icon: z.string().optional(),
  lastTransition: z.string().optional(),
  links: z.array(Link).optional(),
  lookup: Block.optional(),
  configLookup: Block.optional(),
  summary: Block.optional(),
}).loose();

const ResourceSelectorShape = z.object({
  id: z.string().optional(), name: z.string().optional(), namespace: z.string().optional(), agent: z.string().optional(),
  scope: z.string().optional(), search: z.string().optional(), types: z.array(z.string()).optional(),
  statuses: z.array(z.string()).optional(), labelSelector: z.string().optional(), fieldSelector: z.string().optional(),
  tagSelector: z.string().optional(), includeDeleted: z.boolean().optional(),
}).loose();

/**
 * A component's static `summary` (duty types.Summary). Only `incidents` and `insights` ({type: {severity: n}}) are
 * acted on: the roll-up adds them to the component's own (as canary-checker's Component.Summarize); the counts of
 * health and checks are always computed.
 */
const Count = z.number().int().min(0).max(999_999_999);
const Nested = z.record(z.string(), z.record(z.string(), Count));
export const SummarySpec = z.object({
  healthy: Count.optional(), unhealthy: Count.optional(), warning: Count.optional(), info: Count.optional(),
  incidents: Nested.optional(), insights: Nested.optional(), checks: z.record(z.string(), Count).optional(),
}).strict();

/** An EnvVar: a value, or `valueFrom` a Secret or ConfigMap key. */
const EnvVarShape = z.union([z.string(), z.object({ name: z.string().optional(), value: z.string().optional(), valueFrom: Block.optional() }).loose()]);

/**
 * `push` (duty's HTTPConnection): after each run the tree is POSTed there (runner/push.ts). `url`, or a
 * `connection://` whose url is used; credentials as an http check's.
 */
export const PushSpec = z.object({
  url: z.string().optional(),
  connection: z.string().optional(),
  username: EnvVarShape.optional(),
  password: EnvVarShape.optional(),
  bearer: EnvVarShape.optional(),
  digest: z.boolean().optional(),
  ntlm: z.boolean().optional(),
  ntlmv2: z.boolean().optional(),
  oauth: z.object({
    tokenURL: z.string().optional(), clientID: EnvVarShape.optional(), clientSecret: EnvVarShape.optional(),
    scope: z.array(z.string()).optional(), params: StringMap.optional(),
  }).loose().optional(),
  tls: z.object({
    insecureSkipVerify: z.boolean().optional(), ca: EnvVarShape.optional(), cert: EnvVarShape.optional(), key: EnvVarShape.optional(),
    handshakeTimeout: z.union([z.number(), z.string()]).optional(),
  }).loose().optional(),
  headers: z.array(z.object({ name: z.string(), value: z.string().optional(), valueFrom: Block.optional() }).loose()).optional(),
  awsSigV4: Block.optional(),
}).loose();

const ComponentCheck = z.object({ selector: ResourceSelectorShape.optional(), inline: Block.optional() }).loose();
const ParentLookup = z.object({
  name: z.string().optional(), namespace: z.string().optional(), type: z.string().optional(), externalID: z.string().optional(),
}).loose();
const Relationship = z.object({ ref: z.string().optional(), type: z.string().optional() }).loose();

/**
 * ComponentSpec, typed `depth` levels deep (a CRD schema cannot recurse); deeper `components` are open objects,
 * which the semantic checks below still walk.
 */
function componentShape(depth: number): z.ZodObject {
  const children = depth > 0 ? z.array(componentShape(depth - 1)) : z.array(Block);
  const forEach = z.object({
    components: children.optional(),
    properties: z.array(PropertySpec).optional(),
    configs: z.array(Block).optional(),
    checks: z.array(ComponentCheck).optional(),
    selectors: z.array(ResourceSelectorShape).optional(),
    relationships: z.array(Relationship).optional(),
  }).loose();
  return z.object({
    name: z.string().optional(),
    namespace: z.string().optional(),
    tooltip: z.string().optional(),
    icon: z.string().optional(),
    owner: z.string().optional(),
    externalID: z.string().optional(),
    id: TemplateSpec.optional(),
    order: z.number().int().optional(),
    labels: StringMap.optional(),
    hidden: z.boolean().optional(),
    type: z.string().optional(),
    lifecycle: z.string().optional(),
    relationships: z.array(Relationship).optional(),
    properties: z.array(PropertySpec).optional(),
    lookup: Block.optional(),
    components: children.optional(),
    selectors: z.array(ResourceSelectorShape).optional(),
    checks: z.array(ComponentCheck).optional(),
    configs: z.array(Block).optional(),
    summary: SummarySpec.optional(),
    forEach: forEach.optional(),
    logs: z.array(Block).optional(),
    parentLookup: ParentLookup.optional(),
    statusExpr: z.string().optional(),
    healthExpr: z.string().optional(),
    health: z.string().optional(),
    configID: z.string().optional(),
  }).loose();
}

export const ComponentSpec = componentShape(1);

export const TopologyFields = z.object({
  type: z.string().optional(),
  id: TemplateSpec.optional(),
  schedule: z.string().optional(),
  tooltip: z.string().optional(),
  icon: z.string().optional(),
  text: z.string().optional(),
  label: TemplateSpec.optional(),
  owner: z.string().optional(),
  components: z.array(ComponentSpec).optional(),
  healthExpr: z.string().optional(),
  statusExpr: z.string().optional(),
  properties: z.array(PropertySpec).optional(),
  configs: z.array(Block).optional(),
  groupBy: Block.optional(),
  push: PushSpec.optional(),
});

/** Every semantic problem of a Topology spec (shape problems are zod's); empty when it is fine. */
export function topologySpecProblems(spec: Obj): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const add = (path: Path, message: string) => problems.push({ path, message });
  if (typeof spec.schedule === 'string' && spec.schedule.trim()) {
    try {
      parseSchedule(spec.schedule);
    } catch (err) {
      add(['schedule'], (err as Error).message);
    }
  }
  exprProblems(spec, [], add);
  pushProblems(spec.push, add);
  templateField(spec.id, ['id'], add);
  propertiesProblems(spec.properties, ['properties'], add);
  if (Array.isArray(spec.components)) spec.components.forEach((c, i) => componentProblems(c, ['components', i], add, false));
  return problems;
}

type Add = (p: Path, m: string) => void;

/** `push.url` is an http(s) URL (or a `connection://`); `awsSigV4` is not supported. */
function pushProblems(push: unknown, add: Add): void {
  if (!isObj(push)) return;
  if (push.awsSigV4 !== undefined) add(['push', 'awsSigV4'], 'AWS SigV4 signing is not supported');
  if (typeof push.connection === 'string' && push.connection.trim() && !push.connection.startsWith('connection://')) {
    add(['push', 'connection'], 'connection://<namespace>/<name>');
  }
  const url = push.url;
  if (typeof url !== 'string' || !url.trim() || url.startsWith('connection://') || url.includes('$(')) return;
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(url).protocol);
  } catch { /* not a URL */ }
  if (!ok) add(['push', 'url'], 'an http or https URL (or connection://<namespace>/<name>)');
}

function exprProblems(o: Obj, at: Path, add: Add): void {
  for (const f of ['healthExpr', 'statusExpr']) {
    const v = o[f];
    if (typeof v !== 'string' || !v.trim()) continue;
    const e = celSyntaxError(v);
    if (e) add([...at, f], `invalid CEL: ${e}`);
  }
}

/** A string that may carry templates: field references only. */
function templated(v: unknown, at: Path, add: Add): void {
  if (typeof v !== 'string') return;
  const p = templateProblem(v);
  if (p) add(at, p);
}

/** `id: {template: ...}` (or a plain string, as some fixtures write it). */
function templateField(v: unknown, at: Path, add: Add): void {
  if (typeof v === 'string') templated(v, at, add);
  else if (isObj(v)) templated(v.template, [...at, 'template'], add);
}

function propertiesProblems(props: unknown, at: Path, add: Add): void {
  if (!Array.isArray(props)) return;
  props.forEach((p, i) => {
    if (!isObj(p)) return;
    templated(p.name, [...at, i, 'name'], add);
  });
}

/** Every string inside a forEach block is rendered per component: each must be field references only. */
function everyString(v: unknown, at: Path, add: Add): void {
  if (typeof v === 'string') templated(v, at, add);
  else if (Array.isArray(v)) v.forEach((x, i) => everyString(x, [...at, i], add));
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) everyString(x, [...at, k], add);
}

function componentProblems(c: unknown, at: Path, add: Add, inForEach: boolean): void {
  if (!isObj(c)) return;
  // the reference keeps a nameless component that only selects others (fixtures/topology/selector.yaml): saved with
  // an empty name, its selectors linking what they match
  const selects = Array.isArray(c.selectors) && c.selectors.length > 0;
  if (!inForEach && (typeof c.name !== 'string' || !c.name.trim()) && !isObj(c.lookup) && !selects) {
    add([...at, 'name'], 'name is required (a component without a lookup is named by it)');
  }
  templated(c.name, [...at, 'name'], add);
  templateField(c.id, [...at, 'id'], add);
  // the typed shape judges `summary` two levels deep (a CRD schema cannot recurse); below that, the same rules here
  if (c.summary !== undefined && at.filter((x) => x === 'components').length > 2) {
    const r = SummarySpec.safeParse(c.summary);
    if (!r.success) for (const i of r.error.issues) add([...at, 'summary', ...i.path.map((x) => (typeof x === 'symbol' ? String(x) : x))], i.message);
  }
  exprProblems(c, at, add);
  propertiesProblems(c.properties, [...at, 'properties'], add);
  if (isObj(c.forEach)) everyString(c.forEach, [...at, 'forEach'], add);
  if (Array.isArray(c.components)) c.components.forEach((x, i) => componentProblems(x, [...at, 'components', i], add, inForEach));
  if (isObj(c.forEach) && Array.isArray(c.forEach.components)) {
    c.forEach.components.forEach((x, i) => componentProblems(x, [...at, 'forEach', 'components', i], add, true));
  }
}

/** The Topology spec: the typed shape (CRD schema) and the semantic checks; unknown keys are kept. */
export const TopologySpec = TopologyFields.loose().superRefine((spec, ctx) => {
  for (const p of topologySpecProblems(spec as Obj)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
});

/** A problem as run errors and CR statuses name it: `spec.components.1.name: …`. */
export const problemText = (p: SpecProblem): string => `${specPathText(p.path)}: ${p.message}`;

/** The spec as a JSON Schema (draft-07, as monaco-yaml reads it), from the same zod. */
export function topologyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(TopologyFields, { io: 'input', unrepresentable: 'any', target: 'draft-7' });
  return { ...schema, $id: 'topology.schema.json', title: 'Topology spec' };
}
