/**
 * The "Add via GitOps" generator of the Add Integration dialog (spec 001 §2 "Integrations", §9 defaults): a chart from
 * Flanksource's repository, installed either by Flux (a HelmRepository and a HelmRelease) or by the helm CLI. Pure
 * and shared: the web renders it, tests apply its output with the real kubectl and helm.
 *
 * The reference UI fetched each chart's Chart.yaml from a public registry at run time; that registry is out of reach
 * here, so the charts ship as data below (names and versions as published by flanksource/mission-control-registry and
 * flanksource/mission-control-chart).
 */
import { z } from 'zod';
import { Document, parse, Scalar, visit, type ToStringOptions } from 'yaml';

/** The Helm repository every tile's chart comes from. */
export const CHART_REPOSITORY = { name: 'flanksource', url: 'https://flanksource.github.io/charts' } as const;

/** One "Add via GitOps" tile: what the user picks, the chart it installs. */
export interface GitOpsChart {
  /** The tile's title. */
  title: string;
  /** The chart's name in CHART_REPOSITORY (also the release name). */
  chart: string;
  version: string;
}

/** The tiles in the reference's order, one line each. */
export const GITOPS_CHARTS: readonly GitOpsChart[] = [
  { title: 'AWS', chart: 'mission-control-aws', version: '1.0.7' },
  { title: 'Azure', chart: 'mission-control-azure', version: '1.0.0' },
  { title: 'Prometheus', chart: 'mission-control-prometheus', version: '0.1.10' },
  { title: 'Flux', chart: 'mission-control-flux', version: '0.1.20' },
  { title: 'Kubernetes', chart: 'mission-control-kubernetes', version: '0.1.73' },
  { title: 'Mission Control', chart: 'mission-control', version: '0.1.113' },
];

/** Spec 001 §9. */
export const GITOPS_DEFAULTS = { namespace: 'mission-control', interval: '30m' } as const;

/** Chart values: a YAML mapping. */
export type HelmValues = Record<string, unknown>;

/** What the dialog's form holds, checked before anything is generated. */
export const GitOpsForm = z.object({
  // a namespace is a DNS-1123 label; it also lands unquoted in the shell command
  namespace: z
    .string()
    .trim()
    .min(1, 'Namespace is required')
    .max(63, 'Namespace must be at most 63 characters')
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'Namespace must be lower-case letters, digits and "-" (a DNS-1123 label)'),
  // Flux takes a Go duration: 30m, 1h, 1h30m, 90s
  interval: z
    .string()
    .trim()
    .regex(/^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/, 'Interval must be a duration such as 30m, 1h or 1h30m'),
});
export type GitOpsForm = z.infer<typeof GitOpsForm>;

export interface InstallOptions {
  chart: string;
  version: string;
  namespace?: string;
  interval?: string;
  values?: HelmValues;
  /** Defaults to the chart's name. */
  release?: string;
}

/** The editor's text as chart values, or why it cannot be: empty text is no values. */
export function parseValues(text: string): { values: HelmValues; error?: undefined } | { values?: undefined; error: string } {
  let parsed: unknown;
  try {
    // YAML 1.2 (the editor's own reading): `yes` is a string there, and the output below keeps it one
    parsed = parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    return { error: (err as Error).message.split('\n')[0] ?? 'Values are not valid YAML' };
  }
  if (parsed === null || parsed === undefined) return { values: {} };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'Values must be a YAML mapping (key: value)' };
  const bad = firstNonJson(parsed, '');
  if (bad) return { error: `Values cannot hold ${bad}` };
  return { values: parsed as HelmValues };
}

// Helm and Kubernetes carry values as JSON: NaN, .inf and other non-JSON scalars cannot reach them
function firstNonJson(v: unknown, path: string): string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : `${String(v)} at ${path || '.'}`;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (Array.isArray(v)) return v.map((x, i) => firstNonJson(x, `${path}[${i}]`)).find(Boolean);
  if (typeof v === 'object') return Object.entries(v).map(([k, x]) => firstNonJson(x, path ? `${path}.${k}` : k)).find(Boolean);
  return `a ${typeof v} at ${path || '.'}`;
}

/** The two Flux objects, as data. */
export function fluxDocuments(o: InstallOptions) {
  const namespace = o.namespace ?? GITOPS_DEFAULTS.namespace;
  const interval = o.interval ?? GITOPS_DEFAULTS.interval;
  const repository = {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'HelmRepository',
    metadata: { name: CHART_REPOSITORY.name, namespace },
    spec: { interval, url: CHART_REPOSITORY.url },
  };
  const release = {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: o.release ?? o.chart, namespace },
    spec: {
      interval,
      chart: {
        spec: {
          chart: o.chart,
          version: o.version,
          sourceRef: { kind: 'HelmRepository', name: CHART_REPOSITORY.name, namespace },
        },
      },
      values: o.values ?? {},
    },
  };
  return [repository, release] as const;
}

/** The Flux tab: a HelmRepository and a HelmRelease, two YAML documents. */
export function fluxYaml(o: InstallOptions): string {
  return fluxDocuments(o).map(toYaml).join('---\n');
}

/**
 * The Helm CLI tab. The values go in as a values file on stdin (`-f -` with a quoted heredoc), not as `--set`
 * flags: `--set` splits keys on dots (`a.b` would become nested), turns `true` and `0123` into a bool and a number,
 * and needs its own escaping for commas and brackets; `--set-json` still splits the key path. A values file is read
 * as YAML, which keeps nested keys, lists, dotted keys and types as written, and the quoted heredoc (`<<'EOF'`) stops
 * the shell from expanding `$`, backquotes or backslashes inside it. The YAML is written by the same writer as the
 * Flux tab, which quotes every string a YAML 1.1 reader (helm's and kubectl's) could take for something else.
 */
export function helmCommand(o: InstallOptions): string {
  const namespace = o.namespace ?? GITOPS_DEFAULTS.namespace;
  const release = o.release ?? o.chart;
  const values = o.values ?? {};
  const head = [
    `helm repo add ${CHART_REPOSITORY.name} ${CHART_REPOSITORY.url}`,
    `helm repo update ${CHART_REPOSITORY.name}`,
  ];
  const install = `helm upgrade --install ${shellWord(release)} ${CHART_REPOSITORY.name}/${shellWord(o.chart)} --version ${shellWord(o.version)} -n ${shellWord(namespace)} --create-namespace`;
  if (!Object.keys(values).length) return [...head, install, ''].join('\n');
  const body = toYaml(values);
  const lines = new Set(body.split('\n'));
  // the terminator must not appear as a line of the values (it cannot with this writer, but the check is cheap)
  let eof = 'EOF';
  for (let i = 1; lines.has(eof); i++) eof = `EOF_${i}`;
  return [...head, `${install} -f - <<'${eof}'`, `${body}${eof}`, ''].join('\n');
}

// a word the shell reads as itself; anything else is single-quoted
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Strings a YAML 1.1 reader (go-yaml v2 under sigs.k8s.io/yaml, which kubectl and helm use) takes for a boolean or
 * null when plain: `yes`, `on`, `n`… Numbers with 0x, 0o, 0b and `_` (Go's ParseInt base 0) start with a digit and are
 * quoted by the rule below.
 */
const YAML11_WORDS = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;
// plain only when nothing can misread it: a letter first, then letters, digits and _ . / -
const SAFE_PLAIN = /^[A-Za-z][A-Za-z0-9_./-]*$/;

const WRITE: ToStringOptions = { lineWidth: 0, minContentWidth: 0, indentSeq: true };

/** YAML whose every string reads back as the same string under YAML 1.1 and 1.2. */
function toYaml(value: unknown): string {
  const doc = new Document(value);
  // keys are scalars too: `n:` or `0o17:` would come back as false or 15
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && !(SAFE_PLAIN.test(node.value) && !YAML11_WORDS.test(node.value))) {
        node.type = Scalar.QUOTE_DOUBLE;
      }
    },
  });
  return doc.toString(WRITE);
}
