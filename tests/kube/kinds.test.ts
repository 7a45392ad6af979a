import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CHECK_TYPES } from '../../server/lib/checks/index.js';
import { CommonCheck } from '../../server/modules/health/spec.js';
import { renderCrdYaml, structural } from '../../server/modules/kubernetes/crd-gen.js';
import { CanarySpec, crdFile, KINDS, kindByKind, kindByPlural } from '../../server/modules/kubernetes/kinds.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const crdDir = join(root, 'crds');
const chartCrdDir = join(root, 'chart', 'crds');
const fixturesDir = join(root, 'tests', 'fixtures', 'k8s');

type Json = Record<string, any>;
const loadCrd = (file: string): Json => parse(readFileSync(file, 'utf8'));

/** Kubernetes' structural-schema rules, enough to catch what the API server would refuse. */
function structuralProblems(node: Json, path: string, out: string[] = []): string[] {
  const typed = typeof node.type === 'string';
  if (!typed && !node['x-kubernetes-preserve-unknown-fields'] && !node['x-kubernetes-int-or-string']) out.push(`${path}: no type`);
  if (node.properties && node.additionalProperties) out.push(`${path}: properties and additionalProperties together`);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'not', '$ref', 'default', 'nullable']) if (key in node) out.push(`${path}: ${key}`);
  if ('exclusiveMinimum' in node || 'exclusiveMaximum' in node) out.push(`${path}: exclusive bound (read differently by OpenAPI 3.0 and JSON Schema tools)`);
  for (const [k, v] of Object.entries(node.properties ?? {})) structuralProblems(v as Json, `${path}.${k}`, out);
  if (node.items) structuralProblems(node.items, `${path}[]`, out);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') structuralProblems(node.additionalProperties, `${path}{}`, out);
  return out;
}

describe('kinds registry and crds/', () => {
  it('has one CRD file per kind with the same group, version, names and scope, and no other CRD file', () => {
    const files = readdirSync(crdDir).filter((f) => f.endsWith('.yaml')).sort();
    expect(files).toEqual(KINDS.map((k) => basename(crdFile(k))).sort());
    for (const k of KINDS) {
      const crd = loadCrd(crdFile(k));
      expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
      expect(crd.kind).toBe('CustomResourceDefinition');
      expect(crd.metadata.name).toBe(`${k.plural}.${k.group}`);
      expect(crd.spec.group).toBe(k.group);
      expect(crd.spec.scope).toBe('Namespaced');
      expect(crd.spec.names).toMatchObject({ kind: k.kind, plural: k.plural, singular: k.singular, listKind: `${k.kind}List` });
      expect(crd.spec.names.shortNames ?? []).toEqual([...k.shortNames]);
      expect(crd.spec.versions.map((v: Json) => v.name)).toEqual([k.version]);
      const v = crd.spec.versions[0];
      expect(v).toMatchObject({ served: true, storage: true, subresources: { status: {} } });
    }
  });

  it('files are what the generator writes from the zod specs, and the chart carries identical copies', () => {
    for (const k of KINDS) {
      const committed = readFileSync(crdFile(k), 'utf8');
      expect(committed, `${basename(crdFile(k))} is stale: run npx tsx scripts/gen-crds.ts`).toBe(renderCrdYaml(k));
      expect(readFileSync(join(chartCrdDir, basename(crdFile(k))), 'utf8')).toBe(committed);
    }
    expect(readdirSync(chartCrdDir).sort()).toEqual(readdirSync(crdDir).sort());
  });

  it('every schema is structural (the API server refuses the CRD otherwise)', () => {
    for (const k of KINDS) {
      const schema = loadCrd(crdFile(k)).spec.versions[0].schema.openAPIV3Schema;
      expect(structuralProblems(schema, k.kind)).toEqual([]);
    }
  });

  it('the Canary CRD lists exactly the check types the health runner knows, each with the common check fields', () => {
    const spec = loadCrd(crdFile('Canary')).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    const arrays = Object.entries(spec.properties as Record<string, Json>).filter(([, v]) => v.type === 'array' && v.items?.properties?.name);
    // webhook is one object in the reference (or a list): an untyped node that keeps whatever it is given
    expect(arrays.map(([key]) => key).sort()).toEqual(Object.keys(CHECK_TYPES).filter((k) => k !== 'webhook').sort());
    expect(spec.properties.webhook).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    for (const [key, v] of arrays) {
      for (const field of Object.keys(CommonCheck.shape)) expect(v.items.properties, `${key}.${field}`).toHaveProperty(field);
      // optional, as in the reference (json:"name,omitempty"): a nameless check is named after its description or endpoint
      expect(v.items.required ?? [], key).not.toContain('name');
    }
    expect(spec.properties.dns.items.required).toContain('query');
    expect(spec.properties.exec.items.required).toContain('script');
    // reference manifests with check types this console does not run still apply; the console reports them
    expect(spec['x-kubernetes-preserve-unknown-fields']).toBe(true);
  });

  it('the Canary CRD has the reference printer columns and status fields', () => {
    const v = loadCrd(crdFile('Canary')).spec.versions[0];
    const names = v.additionalPrinterColumns.filter((c: Json) => !c.priority).map((c: Json) => c.name);
    expect(names).toEqual(['Schedule', 'Status', 'Last Check', 'Uptime 1H', 'Latency 1H', 'Last Transitioned', 'Message']);
    const status = v.schema.openAPIV3Schema.properties.status.properties;
    for (const f of ['status', 'lastCheck', 'uptime1h', 'latency1h', 'lastTransitionedTime', 'message', 'errorMessage',
      'observedGeneration', 'checks', 'checkStatus', 'persistedID']) expect(status, f).toHaveProperty(f);
    expect(status.checkStatus.additionalProperties.properties).toHaveProperty('uptime1h');
  });

  it('looks kinds up by plural and by kind, within a group when given', () => {
    expect(kindByPlural('canaries')?.kind).toBe('Canary');
    expect(kindByPlural('notificationsilences', 'mission-control.flanksource.com')?.table).toBe('notification_silences');
    expect(kindByPlural('canaries', 'mission-control.flanksource.com')).toBeUndefined();
    expect(kindByKind('ScrapeConfig')?.group).toBe('configs.flanksource.com');
    expect(kindByKind('Nope')).toBeUndefined();
    expect(() => crdFile('Nope')).toThrow(/unknown kind/);
    expect(new Set(KINDS.map((k) => k.table)).size).toBe(KINDS.length);
  });
});

describe('structural()', () => {
  it('turns unions, maps, exclusive bounds and open objects into structural nodes', () => {
    expect(structural({ anyOf: [{ type: 'number' }, { type: 'string' }] })).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(structural({ anyOf: [{ type: 'array' }, { type: 'object' }] })).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(structural({})).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(structural({ type: 'number', exclusiveMinimum: 0, default: 3 })).toEqual({ type: 'number', minimum: 0 });
    expect(structural({ type: 'object', additionalProperties: { type: 'string' } })).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(structural({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }))
      .toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(structural({ type: 'object', properties: { a: { type: 'string' } } }))
      .toEqual({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-preserve-unknown-fields': true });
  });
});

describe('kind specs', () => {
  it('the Canary spec runs the health module validation and reports problems by path', () => {
    const ok = CanarySpec.safeParse({ schedule: '@every 30s', http: [{ name: 'home', url: 'http://127.0.0.1:1/' }] });
    expect(ok.success).toBe(true);
    const bad = CanarySpec.safeParse({ schedule: '@every 30s', http: [{ name: 'home', url: 'http://x/', test: { expr: 'code ==' } }], kubernetes: [{ name: 'k' }] });
    expect(bad.success).toBe(false);
    const issues = bad.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues.some((i) => i.startsWith('http.0.test.expr: invalid CEL'))).toBe(true);
    expect(issues).toContain('kubernetes: check type "kubernetes" is not supported by this console');
    expect(CanarySpec.safeParse({ schedule: '@every 30s' }).success).toBe(false);
  });

  it('the other specs require what the reference requires', () => {
    expect(kindByKind('Playbook')!.spec.safeParse({ title: 'x' }).success).toBe(false);
    expect(kindByKind('Playbook')!.spec.safeParse({ actions: [{ name: 'a', exec: { script: 'true' } }] }).success).toBe(true);
    expect(kindByKind('Notification')!.spec.safeParse({ events: [], to: { email: 'a@b.c' } }).success).toBe(false);
    expect(kindByKind('Notification')!.spec.safeParse({ events: ['check.failed'], to: { email: 'a@b.c' } }).success).toBe(true);
    expect(kindByKind('NotificationSilence')!.spec.safeParse({ recursive: 'yes' }).success).toBe(false);
  });

  it('every example manifest in tests/fixtures/k8s is a known kind whose spec validates', () => {
    const files = readdirSync(fixturesDir).filter((f) => f.endsWith('.yaml'));
    const seen = new Set<string>();
    for (const f of files) {
      for (const doc of parseAllDocuments(readFileSync(join(fixturesDir, f), 'utf8'))) {
        const obj = doc.toJS() as Json | null;
        if (!obj) continue;
        const kind = KINDS.find((k) => `${k.group}/${k.version}` === obj.apiVersion && k.kind === obj.kind);
        expect(kind, `${f}: ${obj.apiVersion} ${obj.kind}`).toBeDefined();
        const result = kind!.spec.safeParse(obj.spec);
        expect(result.error?.issues ?? [], `${f}: ${obj.metadata?.name}`).toEqual([]);
        seen.add(kind!.kind);
      }
    }
    expect([...seen].sort()).toEqual(KINDS.map((k) => k.kind).sort());
  });
});
