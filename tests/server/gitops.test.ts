/**
 * The Add Integration generator's output, used as a user would: the Flux tab applied with the real kubectl to the
 * Kubernetes API test server (after Flux's CRDs), the Helm CLI tab run by bash with the real helm rendering a chart
 * that prints the values it received. Both must give back exactly the values the editor held.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fluxYaml, GITOPS_CHARTS, helmCommand, parseValues, type HelmValues } from '../../server/contracts/gitops.js';
import { startKubeApi, type KubeApi, type KubeObject } from '../support/kube-api/index.js';
import { helmPath, kubectl } from '../support/kube-tools.js';

const FIXTURES = join(import.meta.dirname, '../fixtures');
type Json = Record<string, any>;
/** A stored object's spec, as the test server keeps it. */
const specOf = (o: KubeObject | undefined) => (o?.spec ?? {}) as Json;
const PRINT_VALUES = join(FIXTURES, 'charts/print-values');

/** What a user types into the values editor: every case a careless writer or `--set` would change. */
const EDITOR_TEXT = `
# nested keys, lists and booleans
clusters:
  primary:
    region: eu-west-1
    enabled: true
    weight: 2.5
    zones: [a, b, c]
scraper:
  schedule: "@every 30m"
  exclusions:
    - name: kube-system
      kind: Namespace
    - name: "*"
      kind: Secret
# strings that look like something else: a YAML 1.1 reader (helm, kubectl) would make 0123 the number 83 and yes a bool
accountId: "0123"
answer: "yes"
switch: "on"
"n": "no"
hex: "0x1F"
underscored: "1_000"
version: "1.10"
# a key with a dot is one key, not a path
a.b: dotted
labels:
  app.kubernetes.io/name: aws
  "a.b.c": { "d.e": 1 }
# the shell must not touch these
shell: "$HOME \`id\` \\\\ 'single' \\"double\\" !event"
multiline: |
  line one
  line two
empty: ""
spaces: "  padded  "
unicode: "héllo ✓"
zero: 0
negative: -7
list: [1, "1", true, "true", ~]
`;

let values: HelmValues;

beforeAll(() => {
  const parsed = parseValues(EDITOR_TEXT);
  if (!parsed.values) throw new Error(parsed.error);
  values = parsed.values;
  // the editor's reading is YAML 1.2: these stayed strings
  expect(values.accountId).toBe('0123');
  expect(values.answer).toBe('yes');
  expect(values['a.b']).toBe('dotted');
});

describe('Flux tab applied with kubectl', () => {
  let api: KubeApi;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    api = await startKubeApi();
    dir = await mkdtemp(join(tmpdir(), 'gitops-flux-'));
    kubeconfig = api.writeKubeconfig(join(dir, 'kubeconfig.yaml'));
    for (const crd of ['helmrepositories.yaml', 'helmreleases.yaml']) {
      const r = await kubectl(kubeconfig, ['apply', '-f', join(FIXTURES, 'flux', crd)]);
      expect(r.code, r.stderr).toBe(0);
    }
  });

  afterAll(async () => {
    await api?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates the HelmRepository and the HelmRelease with the editor values under spec.values', async () => {
    await kubectl(kubeconfig, ['create', 'namespace', 'integrations']);
    const yaml = fluxYaml({ chart: 'mission-control-aws', version: '1.0.7', namespace: 'integrations', interval: '45m', values });
    const r = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: yaml });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual([
      'helmrepository.source.toolkit.fluxcd.io/flanksource created',
      'helmrelease.helm.toolkit.fluxcd.io/mission-control-aws created',
    ]);

    const repo = specOf(api.get('source.toolkit.fluxcd.io', 'v1', 'helmrepositories', 'integrations', 'flanksource'));
    expect(repo).toEqual({ interval: '45m', url: 'https://flanksource.github.io/charts' });
    const release = specOf(api.get('helm.toolkit.fluxcd.io', 'v2', 'helmreleases', 'integrations', 'mission-control-aws'));
    expect(release.interval).toBe('45m');
    expect(release.chart.spec).toEqual({
      chart: 'mission-control-aws',
      version: '1.0.7',
      sourceRef: { kind: 'HelmRepository', name: 'flanksource', namespace: 'integrations' },
    });
    expect(release.values).toEqual(values);
  });

  it('applies every tile with the defaults (namespace mission-control, interval 30m) and no values', async () => {
    await kubectl(kubeconfig, ['create', 'namespace', 'mission-control']);
    for (const c of GITOPS_CHARTS) {
      const r = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: fluxYaml({ chart: c.chart, version: c.version }) });
      expect(r.code, r.stderr).toBe(0);
      const release = specOf(api.get('helm.toolkit.fluxcd.io', 'v2', 'helmreleases', 'mission-control', c.chart));
      expect(release.interval).toBe('30m');
      expect(release.chart.spec.version).toBe(c.version);
    }
  });

  it('is refused by the CRD when an interval is not a duration', async () => {
    const yaml = fluxYaml({ chart: 'mission-control-flux', version: '0.1.20', namespace: 'integrations', interval: 'often' });
    const r = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: yaml });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/spec\.interval/);
  });
});

describe('Helm CLI tab run by bash with the real helm', () => {
  let helm: string;
  beforeAll(async () => {
    helm = await helmPath();
  });

  /**
   * Runs the generated command as a user pastes it into bash, with `helm` standing for the real binary: `repo`
   * commands need the network and are skipped; `upgrade --install <release> <chart> …` becomes `helm template` of the
   * print-values chart with the same flags and the same stdin. Returns the values helm rendered.
   */
  async function runCommand(command: string): Promise<{ values: unknown; namespace: string; argv: string }> {
    const prelude = `
helm() {
  if [ "$1" = repo ]; then return 0; fi
  if [ "$1" = upgrade ] && [ "$2" = --install ]; then
    local release="$3"; shift 4
    printf 'ARGV %s\\n' "$*" >&2
    "$HELM_BIN" template "$release" "$PRINT_VALUES" "$@"
    return
  fi
  echo "unexpected: helm $*" >&2; return 2
}
`;
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['-e', '-c', `${prelude}\n${command}`], {
        env: { ...process.env, HELM_BIN: helm, PRINT_VALUES, HOME: tmpdir() },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c ?? -1, stdout: out, stderr: err }));
    });
    expect(code, stderr).toBe(0);
    const cm = parseAllDocuments(stdout).map((d) => d.toJS()).find((d) => d?.kind === 'ConfigMap');
    return { values: JSON.parse(cm.data['values.json']), namespace: cm.metadata.namespace, argv: /ARGV (.*)/.exec(stderr)?.[1] ?? '' };
  }

  it('reproduces the editor values exactly: nested keys, lists, booleans, "0123", dotted keys', async () => {
    const command = helmCommand({ chart: 'mission-control-kubernetes', version: '0.1.73', namespace: 'integrations', values });
    const rendered = await runCommand(command);
    // helm drops null values (they unset a chart default); everything else comes back as typed
    const { list, ...rest } = values;
    expect(rendered.values).toEqual({ ...rest, list: (list as unknown[]).slice(0, 4).concat([null]) });
    expect(rendered.namespace).toBe('integrations');
    expect(rendered.argv).toBe('--version 0.1.73 -n integrations --create-namespace -f -');
  });

  it('installs with helm upgrade --install from the flanksource repository', () => {
    const command = helmCommand({ chart: 'mission-control', version: '0.1.113', values: {} });
    expect(command.split('\n')).toEqual([
      'helm repo add flanksource https://flanksource.github.io/charts',
      'helm repo update flanksource',
      'helm upgrade --install mission-control flanksource/mission-control --version 0.1.113 -n mission-control --create-namespace',
      '',
    ]);
  });

  it('renders the chart with no values when the editor is empty', async () => {
    const rendered = await runCommand(helmCommand({ chart: 'mission-control-azure', version: '1.0.0', values: {} }));
    expect(rendered.values).toEqual({});
    expect(rendered.namespace).toBe('mission-control');
  });
});
