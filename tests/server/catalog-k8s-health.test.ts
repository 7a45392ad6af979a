import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../server/modules/kubernetes/objects.js';
import { kubernetesHealth } from '../../server/modules/catalog/kubernetes/health.js';

/**
 * Kubernetes health per kind, against flanksource/is-healthy's own fixtures (tests/fixtures/is-healthy, Apache-2.0):
 * each fixture carries is-healthy's expectations as `expected-*` annotations, or names its health in its file name.
 */
const DIR = join(import.meta.dirname, '../fixtures/is-healthy');
const NOW = new Date();

/** is-healthy's test placeholders: `@now`, `@now-5m`, `@now+1h`, … as RFC 3339 times relative to the test clock. */
function withTimes(text: string): string {
  return text.replace(/@now(?:([+-])(\d+)([mhd]))?/g, (_m, sign?: string, n?: string, unit?: string) => {
    const ms = sign ? (sign === '-' ? -1 : 1) * Number(n) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 'm' | 'h' | 'd'] : 0;
    return new Date(NOW.getTime() + ms).toISOString().replace(/\.\d+Z$/, 'Z');
  });
}

export function loadFixture(path: string): KubeObject & { metadata: { annotations?: Record<string, string> } } {
  const [doc] = parseAllDocuments(withTimes(readFileSync(join(DIR, path), 'utf8')));
  return doc.toJS() as KubeObject & { metadata: { annotations?: Record<string, string> } };
}

const HEALTHS = ['healthy', 'unhealthy', 'warning', 'unknown'];
const annotated = readdirSync(DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'misc')
  .flatMap((d) => readdirSync(join(DIR, d.name)).filter((f) => f.endsWith('.yaml')).map((f) => `${d.name}/${f}`))
  // the ones stating an expectation (a few of is-healthy's fixtures are only read by its other tests)
  .filter((p) => HEALTHS.includes(p.split('/')[1].replace(/\.yaml$/, '')) || /expected-/.test(readFileSync(join(DIR, p), 'utf8')));

describe('kubernetesHealth against is-healthy fixtures', () => {
  it('covers every kind the brief names', () => {
    const kinds = new Set(annotated.map((p) => p.split('/')[0]));
    for (const k of ['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'Node', 'Namespace', 'Service']) expect(kinds).toContain(k);
  });

  it.each(annotated)('%s', (path) => {
    const obj = loadFixture(path);
    const a = obj.metadata.annotations ?? {};
    const got = kubernetesHealth(obj, NOW);
    const base = path.split('/').pop()!.replace(/\.yaml$/, '');
    const want: Record<string, unknown> = {};
    const have: Record<string, unknown> = {};
    if (HEALTHS.includes(base)) { want.health = base; have.health = got.health; }
    if (a['expected-health']) { want.health = a['expected-health']; have.health = got.health; }
    if (a['expected-status'] !== undefined) { want.status = a['expected-status']; have.status = got.status; }
    if (a['expected-message'] !== undefined) { want.message = a['expected-message']; have.message = got.message ?? ''; }
    if (a['expected-ready'] !== undefined) { want.ready = a['expected-ready'] === 'true'; have.ready = got.ready; }
    expect(Object.keys(want).length, 'the fixture states an expectation').toBeGreaterThan(0);
    expect(have).toEqual(want);
  });

  // is-healthy's health_test.go asserts these files by name (status, health, ready[, message])
  it.each([
    ['misc/namespace.yaml', 'Healthy', 'unknown', true],
    ['misc/namespace-terminating.yaml', 'Terminating', 'unknown', false],
    ['misc/daemonset-ondelete.yaml', 'Running', 'healthy', true],
    ['misc/pvc-bound.yaml', 'Healthy', 'healthy', true],
    ['misc/pvc-pending.yaml', 'Progressing', 'healthy', false],
    ['misc/ingress.yaml', 'Healthy', 'healthy', true],
    ['misc/ingress-unassigned.yaml', 'Pending', 'healthy', false],
    ['misc/ingress-nonemptylist.yaml', 'Healthy', 'healthy', true],
    ['Pod/pod-crashed-once.yaml', 'CrashedOnce', 'unhealthy', false, 'restarted 1 time'],
  ] as const)('%s is %s (%s)', (path, status, health, ready, message?: string) => {
    const got = kubernetesHealth(loadFixture(path), NOW);
    expect({ status: got.status, health: got.health, ready: got.ready }).toEqual({ status, health, ready });
    if (message) expect(got.message).toBe(message);
  });
});
