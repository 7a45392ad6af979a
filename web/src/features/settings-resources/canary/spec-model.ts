import { z } from 'zod';

// the spec's YAML and labels are every settings editor's; the ones importing them from here keep doing so
export { labelsOf, specToYaml, yamlToSpec } from '../spec-yaml';

/** Spec 001 "Schedule options"; a canary with any other schedule keeps it (shown as its own choice). */
export const SCHEDULES = ['@every 30s', '@every 1m', '@every 5m', '@every 15m', '@every 30m', '@hourly', '@every 2h', '@every 4h', '@every 6h', '@every 8h', '@daily', '@weekly'] as const;

const required = (max: number) => z.string().trim().min(1, 'This field is required').max(max, 'Too long');
const millis = z.string().trim().regex(/^\d*$/, 'This field must be a whole number of milliseconds');
const codes = z.string().trim().regex(/^(\d{3}\s*(,\s*\d{3}\s*)*)?$/, 'Status codes separated by commas, e.g. 200, 201');

const DNS_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const dnsName = required(253).regex(DNS_NAME, 'Lower-case letters, digits, "-" and "."');

/** The Form tab's values. Numbers are typed as text so a stray letter gets a message rather than vanishing. */
export const CanaryFormModel = z.object({
  name: dnsName,
  namespace: dnsName,
  labels: z.array(z.object({ key: z.string().trim(), value: z.string().trim() })),
  schedule: z.string(),
  http: z.array(z.object({ name: required(255), url: required(2048), thresholdMillis: millis, responseCodes: codes })),
  tcp: z.array(z.object({ name: required(255), endpoint: required(1024), thresholdMillis: millis })),
});
export type CanaryFormModel = z.infer<typeof CanaryFormModel>;

type Spec = Record<string, unknown>;
type Entry = Record<string, unknown>;

const list = (v: unknown): Entry[] => (Array.isArray(v) ? v.filter((e): e is Entry => !!e && typeof e === 'object') : []);
const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** The Form tab's view of a canary: the fields it edits; everything else stays in the spec. */
export function toFormModel(meta: { name: string; namespace: string; labels: Record<string, string> | null }, spec: Spec): CanaryFormModel {
  return {
    name: meta.name,
    namespace: meta.namespace,
    labels: Object.entries(meta.labels ?? {}).map(([key, value]) => ({ key, value })),
    schedule: str(spec.schedule),
    http: list(spec.http).map((e) => ({
      name: str(e.name),
      url: str(e.url ?? e.endpoint),
      thresholdMillis: str(e.thresholdMillis),
      responseCodes: Array.isArray(e.responseCodes) ? e.responseCodes.join(', ') : '',
    })),
    tcp: list(spec.tcp).map((e) => ({ name: str(e.name), endpoint: str(e.endpoint), thresholdMillis: str(e.thresholdMillis) })),
  };
}

/**
 * Folds the Form tab back into the spec: entries keep the fields the form does not show (by position), other
 * check types and canary fields are untouched.
 */
export function mergeFormIntoSpec(spec: Spec, f: CanaryFormModel): Spec {
  const out: Spec = { ...spec };
  if (f.schedule) out.schedule = f.schedule;
  else delete out.schedule;
  const oldHttp = list(spec.http);
  const http = f.http.map((h, i) => {
    const e: Entry = { ...oldHttp[i], name: h.name.trim() };
    delete e.endpoint;
    e.url = h.url.trim();
    setOrDrop(e, 'thresholdMillis', num(h.thresholdMillis));
    const rc = h.responseCodes.split(',').map((c) => c.trim()).filter(Boolean).map((c) => num(c));
    setOrDrop(e, 'responseCodes', rc.length ? rc : undefined);
    return e;
  });
  const oldTcp = list(spec.tcp);
  const tcp = f.tcp.map((t, i) => {
    const e: Entry = { ...oldTcp[i], name: t.name.trim(), endpoint: t.endpoint.trim() };
    setOrDrop(e, 'thresholdMillis', num(t.thresholdMillis));
    return e;
  });
  setOrDrop(out, 'http', http.length ? http : undefined);
  setOrDrop(out, 'tcp', tcp.length ? tcp : undefined);
  return out;
}

/** Digits become a number; anything else stays text, for the schema (and the server) to point at. */
const num = (v: string) => (!v.trim() ? undefined : /^\d+$/.test(v.trim()) ? Number(v.trim()) : v.trim());

function setOrDrop(o: Entry, key: string, v: unknown) {
  if (v === undefined) delete o[key];
  else o[key] = v;
}


/** A new canary: one HTTP check to fill in, every 5 minutes. */
export const NEW_SPEC: Spec = { schedule: '@every 5m' };

/**
 * Splits the server's 400 `details` (`{ "spec.http.0.url": "..." }`) into form fields and the rest. Form paths
 * are the Form tab's names (`http.0.url`); what the form does not show stays in `other`.
 */
export function splitServerDetails(details: unknown): { fields: Record<string, string>; other: string[] } {
  const fields: Record<string, string> = {};
  const other: string[] = [];
  if (!details || typeof details !== 'object') return { fields, other };
  for (const [path, msg] of Object.entries(details as Record<string, unknown>)) {
    const m = /^(?:spec\.)?((?:http|tcp)\.\d+\.(?:name|url|endpoint|thresholdMillis|responseCodes)|schedule)$/.exec(path);
    const top = /^(name|namespace)$/.exec(path);
    const key = m ? m[1].replace(/^http\.(\d+)\.endpoint$/, 'http.$1.url') : top?.[1];
    if (key) fields[key] = String(msg);
    else other.push(`${path}: ${String(msg)}`);
  }
  return { fields, other };
}
