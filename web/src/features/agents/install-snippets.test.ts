import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { fluxManifests, fluxObjects, helmCommand, helmSetEscape, shellQuote, type InstallSnippetOptions } from './install-snippets';

const HOSTILE = `a'b $(touch /tmp/x) "c"`;
const base: InstallSnippetOptions = {
  name: 'eu-west-prod',
  token: 'tok.secret',
  upstreamUrl: 'https://console.example.com',
  chartRepoUrl: 'https://console.example.com/api/agent/charts/',
  chartName: 'ops-console',
  chartVersion: '0.1.0',
  kubernetes: { enabled: true, scrapeInterval: '30m' },
  telemetry: { enabled: true, topologyName: 'prod' },
};

/** What bash makes of a text: its words, printed one per line by printf (nothing is run but printf). */
function bashWords(words: string): string[] {
  const out = execFileSync('bash', ['-c', `printf '%s\\0' ${words}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('shellQuote', () => {
  it('leaves plain words, single-quotes the rest so bash reads them back literally', () => {
    expect(shellQuote('agent.name=eu-west')).toBe('agent.name=eu-west');
    const values = [HOSTILE, '', "'", "''", '`id`', '$HOME', 'a\\b', 'x y', '*', '!x', '\n', 'é'];
    expect(bashWords(values.map(shellQuote).join(' '))).toEqual(values);
  });
});

describe('helmSetEscape', () => {
  it('escapes the characters Helm --set parses: backslash, comma, brace', () => {
    expect(helmSetEscape('a,b\\c{d}')).toBe('a\\,b\\\\c\\{d}');
    expect(helmSetEscape(HOSTILE)).toBe(HOSTILE);
  });
});

describe('helmCommand', () => {
  it('adds the repository, updates it and installs in agent mode with every value', () => {
    const cmd = helmCommand(base);
    expect(cmd).toContain('helm repo add ops-console https://console.example.com/api/agent/charts\n');
    expect(cmd).toContain('helm repo update ops-console\n');
    expect(cmd).toContain('helm upgrade --install ops-console-agent ops-console/ops-console');
    for (const part of [
      '--version 0.1.0', '-n ops-console-agent --create-namespace', '--set mode=agent',
      '--set agent.upstreamUrl=https://console.example.com', '--set-string agent.name=eu-west-prod',
      '--set-string agent.token=tok.secret', '--set agent.kubernetes.enabled=true',
      '--set-string agent.kubernetes.scrapeInterval=30m', '--set agent.pushTelemetry.enabled=true',
      '--set-string agent.pushTelemetry.topologyName=prod',
    ]) expect(cmd).toContain(part);
  });

  it('keeps a hostile name one literal word (quotes, $() and Helm separators)', () => {
    const name = `${HOSTILE},x=y\\z`;
    const cmd = helmCommand({ ...base, name, namespace: 'ns 1' });
    const install = cmd.slice(cmd.indexOf('helm upgrade'));
    const words = bashWords(install.replace(/\\\n/g, ' ').replace(/^helm /, ''));
    expect(words).toContain(`agent.name=${helmSetEscape(name)}`);
    expect(words).toContain('ns 1');
  });

  it('leaves out what is off or unknown; an oci:// repository needs no repo add', () => {
    const cmd = helmCommand({
      ...base, chartVersion: null, chartRepoUrl: 'oci://ghcr.io/ops-console/charts',
      kubernetes: { enabled: false, scrapeInterval: '30m' }, telemetry: { enabled: false, topologyName: '' },
    });
    expect(cmd).not.toContain('helm repo');
    expect(cmd).toContain('helm upgrade --install ops-console-agent oci://ghcr.io/ops-console/charts/ops-console');
    expect(cmd).not.toContain('--version');
    expect(cmd).toContain('--set agent.kubernetes.enabled=false');
    expect(cmd).not.toContain('scrapeInterval');
    expect(cmd).not.toContain('topologyName');
  });
});

describe('fluxManifests', () => {
  it('Namespace, token Secret, HelmRepository v1 and HelmRelease v2 taking the token from the Secret', () => {
    const docs = parseAllDocuments(fluxManifests(base)).map((d) => d.toJS());
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`)).toEqual([
      'v1 Namespace', 'v1 Secret', 'source.toolkit.fluxcd.io/v1 HelmRepository', 'helm.toolkit.fluxcd.io/v2 HelmRelease',
    ]);
    const [ns, secret, repo, release] = docs;
    expect(ns.metadata.name).toBe('ops-console-agent');
    expect(secret.stringData).toEqual({ token: 'tok.secret' });
    expect(repo.spec.url).toBe('https://console.example.com/api/agent/charts');
    expect(release.spec.chart.spec).toEqual({ chart: 'ops-console', version: '0.1.0', sourceRef: { kind: 'HelmRepository', name: 'ops-console' } });
    expect(release.spec.valuesFrom).toEqual([{ kind: 'Secret', name: secret.metadata.name, valuesKey: 'token', targetPath: 'agent.token' }]);
    expect(release.spec.values).toEqual({
      mode: 'agent',
      agent: {
        upstreamUrl: 'https://console.example.com', name: 'eu-west-prod',
        kubernetes: { enabled: true, scrapeInterval: '30m' }, pushTelemetry: { enabled: true, topologyName: 'prod' },
      },
    });
    expect(JSON.stringify(release)).not.toContain('tok.secret');
  });

  it('quotes values YAML would otherwise retype or break on', () => {
    for (const name of [HOSTILE, 'true', '123', 'null', '- x', '#x', 'a: b', '{x}']) {
      const text = fluxManifests({ ...base, name, token: 'yes' });
      const docs = parseAllDocuments(text).map((d) => d.toJS());
      expect(docs[3].spec.values.agent.name, name).toBe(name);
      expect(docs[1].stringData.token).toBe('yes');
    }
    expect(fluxObjects({ ...base, chartRepoUrl: 'oci://r/c' })[2]).toMatchObject({ spec: { type: 'oci', url: 'oci://r/c' } });
  });
});
