import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { fluxDocuments, fluxYaml, GITOPS_CHARTS, GitOpsForm, helmCommand, parseValues } from './gitops';

describe('GITOPS_CHARTS', () => {
  it('has the six tiles of the spec, each a Flanksource chart with a version', () => {
    expect(GITOPS_CHARTS.map((c) => [c.title, c.chart])).toEqual([
      ['AWS', 'mission-control-aws'],
      ['Azure', 'mission-control-azure'],
      ['Prometheus', 'mission-control-prometheus'],
      ['Flux', 'mission-control-flux'],
      ['Kubernetes', 'mission-control-kubernetes'],
      ['Mission Control', 'mission-control'],
    ]);
    for (const c of GITOPS_CHARTS) expect(c.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('parseValues', () => {
  it('reads the editor as YAML 1.2: yes and 0123 stay strings when quoted, plain yes is a string too', () => {
    expect(parseValues('a: yes\nb: "0123"\nc: 0123\nd.e: 1')).toEqual({ values: { a: 'yes', b: '0123', c: 123, 'd.e': 1 } });
  });

  it('takes empty text or only comments as no values', () => {
    expect(parseValues('')).toEqual({ values: {} });
    expect(parseValues('# nothing yet\n')).toEqual({ values: {} });
  });

  it('refuses what is not a mapping, bad YAML, duplicate keys and non-JSON numbers', () => {
    expect(parseValues('- a\n- b').error).toBe('Values must be a YAML mapping (key: value)');
    expect(parseValues('just text').error).toBe('Values must be a YAML mapping (key: value)');
    expect(parseValues('a: [1, 2').error).toBeTruthy();
    expect(parseValues('a: 1\na: 2').error).toMatch(/unique/i);
    expect(parseValues('a:\n  b: .nan').error).toBe('Values cannot hold NaN at a.b');
  });
});

describe('fluxYaml', () => {
  it('is a HelmRepository and a HelmRelease in the namespace, with interval, chart, version, sourceRef and values', () => {
    const docs = parseAllDocuments(
      fluxYaml({ chart: 'mission-control-flux', version: '0.1.20', namespace: 'ops', interval: '1h', values: { a: { b: [1] } } }),
    ).map((d) => d.toJS());
    expect(docs).toEqual([
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'HelmRepository',
        metadata: { name: 'flanksource', namespace: 'ops' },
        spec: { interval: '1h', url: 'https://flanksource.github.io/charts' },
      },
      {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        metadata: { name: 'mission-control-flux', namespace: 'ops' },
        spec: {
          interval: '1h',
          chart: {
            spec: {
              chart: 'mission-control-flux',
              version: '0.1.20',
              sourceRef: { kind: 'HelmRepository', name: 'flanksource', namespace: 'ops' },
            },
          },
          values: { a: { b: [1] } },
        },
      },
    ]);
  });

  it('defaults to namespace mission-control and interval 30m (spec 001 §9)', () => {
    const [repo, release] = fluxDocuments({ chart: 'mission-control', version: '0.1.113' });
    expect(repo.metadata.namespace).toBe('mission-control');
    expect(release.spec.interval).toBe('30m');
  });

  it('quotes every string a YAML 1.1 reader would misread, keys included', () => {
    const text = fluxYaml({ chart: 'x', version: '1.0.0', values: { on: 'yes', n: 'no', v: '0123', h: '0x1F', u: '1_000', ok: 'plain' } });
    expect(text).toContain('"on": "yes"');
    expect(text).toContain('"n": "no"');
    expect(text).toContain('v: "0123"');
    expect(text).toContain('h: "0x1F"');
    expect(text).toContain('u: "1_000"');
    expect(text).toContain('ok: plain');
    // and a YAML 1.1 reader gets the strings back
    const release = parse(text.split('---\n')[1]!, { version: '1.1' });
    expect(release.spec.values).toEqual({ on: 'yes', n: 'no', v: '0123', h: '0x1F', u: '1_000', ok: 'plain' });
  });
});

describe('helmCommand', () => {
  it('passes the values as YAML on stdin through a quoted heredoc', () => {
    const command = helmCommand({ chart: 'mission-control-aws', version: '1.0.7', namespace: 'aws', values: { 'a.b': '$HOME', list: [true, '0123'] } });
    expect(command).toBe(
      [
        'helm repo add flanksource https://flanksource.github.io/charts',
        'helm repo update flanksource',
        "helm upgrade --install mission-control-aws flanksource/mission-control-aws --version 1.0.7 -n aws --create-namespace -f - <<'EOF'",
        'a.b: "$HOME"',
        'list:',
        '  - true',
        '  - "0123"',
        'EOF',
        '',
      ].join('\n'),
    );
  });

  it('is not ended early by a key named EOF', () => {
    // every line of the values is `key: value` or an indented item, so none equals the terminator
    const command = helmCommand({ chart: 'c', version: '1.0.0', values: { EOF: 1 } });
    expect(command).toContain("-f - <<'EOF'\nEOF: 1\nEOF\n");
  });
});

describe('GitOpsForm', () => {
  it('accepts a DNS-1123 namespace and a Go duration', () => {
    expect(GitOpsForm.safeParse({ namespace: 'mission-control', interval: '1h30m' }).success).toBe(true);
  });

  it('names the field that is wrong', () => {
    const bad = GitOpsForm.safeParse({ namespace: 'Mission Control', interval: 'often' });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(['namespace', 'interval']);
  });
});
