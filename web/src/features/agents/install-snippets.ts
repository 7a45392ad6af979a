import { stringify } from 'yaml';

/**
 * The install dialog's snippets (issue 16 "Installation Instructions"): a Helm CLI command and Flux manifests that
 * install this project's chart in agent mode. Pure functions: the dialog renders their text.
 *
 * Every value is quoted for the shell POSIX-safely (single quotes, `'` as `'\''`), so quotes, `$()` or backticks in
 * an agent's name stay literal, and escaped for Helm's `--set` parser first (`\`, `,` and `{` take a backslash).
 * Strings go with `--set-string` (a name `true`, `123` or `null` stays a string); the upstream URL with `--set`.
 */
export interface InstallSnippetOptions {
  name: string;
  token: string;
  /** The console the agent pushes to (PUBLIC_URL). */
  upstreamUrl: string;
  /** A Helm repository (https://…, the console's /api/agent/charts by default) or an OCI registry path (oci://…). */
  chartRepoUrl: string;
  chartName: string;
  /** Pinned when known (the console-served chart); otherwise the repository's latest. */
  chartVersion?: string | null;
  namespace?: string;
  /** Helm release name; default DEFAULT_RELEASE. */
  release?: string;
  /** Local name of the repository (`helm repo add <repoName>`, the Flux HelmRepository); default DEFAULT_REPO_NAME. */
  repoName?: string;
  kubernetes: { enabled: boolean; scrapeInterval: string };
  telemetry: { enabled: boolean; topologyName: string };
}

export const DEFAULT_NAMESPACE = 'ops-console-agent';
export const DEFAULT_RELEASE = 'ops-console-agent';
export const DEFAULT_REPO_NAME = 'ops-console';
/** The Flux Secret's key holding the token (valuesFrom → agent.token). */
export const TOKEN_KEY = 'token';

/** A word the shell takes as it is (no quoting needed). */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** POSIX shell quoting: the word as is when plain, else single-quoted with `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return value !== '' && PLAIN.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A value for Helm's `--set`/`--set-string` parser: `\`, `,` and `{` escaped, so the text arrives literally. */
export function helmSetEscape(value: string): string {
  return value.replace(/[\\,{]/g, (c) => `\\${c}`);
}

const isOci = (url: string) => url.startsWith('oci://');
const trimSlash = (url: string) => url.replace(/\/+$/, '');

function names(opts: InstallSnippetOptions) {
  return {
    namespace: opts.namespace || DEFAULT_NAMESPACE,
    release: opts.release || DEFAULT_RELEASE,
    repoName: opts.repoName || DEFAULT_REPO_NAME,
    repoUrl: trimSlash(opts.chartRepoUrl),
  };
}

/** The chart values of an agent install, without the token (the Helm command passes it, Flux takes it from a Secret). */
export function agentValues(opts: InstallSnippetOptions) {
  return {
    mode: 'agent',
    agent: {
      upstreamUrl: opts.upstreamUrl,
      name: opts.name,
      kubernetes: { enabled: opts.kubernetes.enabled, scrapeInterval: opts.kubernetes.scrapeInterval },
      pushTelemetry: { enabled: opts.telemetry.enabled, topologyName: opts.telemetry.topologyName },
    },
  };
}

/** `helm repo add`, `helm repo update` and `helm upgrade --install … --set mode=agent …`, one flag a line. */
export function helmCommand(opts: InstallSnippetOptions): string {
  const { namespace, release, repoName, repoUrl } = names(opts);
  const set = (key: string, value: string | boolean) => `--set ${shellQuote(`${key}=${typeof value === 'string' ? helmSetEscape(value) : value}`)}`;
  const setString = (key: string, value: string) => `--set-string ${shellQuote(`${key}=${helmSetEscape(value)}`)}`;
  const chartRef = isOci(repoUrl) ? `${repoUrl}/${opts.chartName}` : `${repoName}/${opts.chartName}`;
  const flags = [
    `helm upgrade --install ${shellQuote(release)} ${shellQuote(chartRef)}`,
    ...(opts.chartVersion ? [`--version ${shellQuote(opts.chartVersion)}`] : []),
    `-n ${shellQuote(namespace)} --create-namespace`,
    set('mode', 'agent'),
    set('agent.upstreamUrl', opts.upstreamUrl),
    setString('agent.name', opts.name),
    setString('agent.token', opts.token),
    set('agent.kubernetes.enabled', opts.kubernetes.enabled),
    ...(opts.kubernetes.enabled ? [setString('agent.kubernetes.scrapeInterval', opts.kubernetes.scrapeInterval)] : []),
    set('agent.pushTelemetry.enabled', opts.telemetry.enabled),
    ...(opts.telemetry.enabled && opts.telemetry.topologyName ? [setString('agent.pushTelemetry.topologyName', opts.telemetry.topologyName)] : []),
  ];
  const repo = isOci(repoUrl) ? [] : [`helm repo add ${shellQuote(repoName)} ${shellQuote(repoUrl)}`, `helm repo update ${shellQuote(repoName)}`];
  return [...repo, flags.join(' \\\n  ')].join('\n\n') + '\n';
}

/** The Flux manifests' objects: Namespace, token Secret, HelmRepository, HelmRelease (valuesFrom the Secret). */
export function fluxObjects(opts: InstallSnippetOptions): Array<Record<string, unknown>> {
  const { namespace, release, repoName, repoUrl } = names(opts);
  const secretName = `${release}-token`;
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace }, type: 'Opaque', stringData: { [TOKEN_KEY]: opts.token } },
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'HelmRepository', metadata: { name: repoName, namespace },
      spec: { interval: '1h', url: repoUrl, ...(isOci(repoUrl) ? { type: 'oci' } : {}) },
    },
    {
      apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', metadata: { name: release, namespace },
      spec: {
        interval: '10m',
        releaseName: release,
        chart: {
          spec: {
            chart: opts.chartName,
            ...(opts.chartVersion ? { version: opts.chartVersion } : {}),
            sourceRef: { kind: 'HelmRepository', name: repoName },
          },
        },
        valuesFrom: [{ kind: 'Secret', name: secretName, valuesKey: TOKEN_KEY, targetPath: 'agent.token' }],
        values: agentValues(opts),
      },
    },
  ];
}

/** The Flux manifests as one multi-document YAML (the `yaml` package quotes what needs it). */
export function fluxManifests(opts: InstallSnippetOptions): string {
  return fluxObjects(opts).map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}
