import { describe, expect, it } from 'vitest';
import {
  kindOf,
  mergeFormIntoSpec,
  ScraperFormModel,
  SCRAPER_KINDS,
  splitServerDetails,
  templateOf,
  toFormModel,
  typesOf,
  yamlToSpec,
} from './spec-model';

const meta = { name: 'cluster', namespace: 'ops', labels: { team: 'sre' } };

describe('typesOf', () => {
  it('lists the scraper keys of a spec in spec 001 order, then keys the tiles do not show', () => {
    expect(typesOf({ schedule: '@every 5m', http: [{ url: 'x' }], kubernetes: [{}], terraform: [{}], retention: {} })).toEqual([
      'kubernetes',
      'http',
      'terraform',
    ]);
    expect(typesOf({ custom: { anything: 1 } })).toEqual(['custom']);
    expect(typesOf(null)).toEqual([]);
  });
});

describe('tiles', () => {
  it('are spec 001 §3\'s eleven types; kubernetes, file, http, sql and custom are the supported ones', () => {
    expect(SCRAPER_KINDS.map((k) => k.key)).toEqual([
      'kubernetes', 'azure', 'kubernetesFile', 'sql', 'trivy', 'aws', 'file', 'githubActions', 'http', 'azureDevops', 'custom',
    ]);
    expect(SCRAPER_KINDS.filter((k) => k.supported).map((k) => k.key)).toEqual(['kubernetes', 'sql', 'file', 'http', 'custom']);
  });

  it('start a spec with one entry of their type and the default schedule', () => {
    expect(templateOf(kindOf('file')!)).toEqual({ schedule: '@every 1h', file: [{ type: 'File', id: '$.id', name: '$.name', paths: [] }] });
    expect(templateOf(kindOf('custom')!)).toEqual({ schedule: '@every 1h' });
  });
});

describe('toFormModel', () => {
  it('reads the row columns, the schedule and the first entry of each type', () => {
    const spec = {
      schedule: '@every 5m',
      kubernetes: [{ clusterName: 'prod', exclusions: { kind: ['Secret', 'Event'], namespace: ['kube-*'], name: [] } }, { clusterName: 'other' }],
      file: [{ paths: ['a/*.yaml', 'b.json'], ignore: ['a/skip.yaml'] }],
      http: [{ url: 'http://x/api', method: 'post' }],
      sql: [{ connection: 'connection://default/pg', query: 'select 1' }],
    };
    expect(toFormModel(meta, spec)).toEqual({
      name: 'cluster',
      namespace: 'ops',
      schedule: '@every 5m',
      labels: [{ key: 'team', value: 'sre' }],
      kubernetes: { clusterName: 'prod', excludeKinds: 'Secret\nEvent', excludeNamespaces: 'kube-*', excludeNames: '' },
      file: { paths: 'a/*.yaml\nb.json', ignore: 'a/skip.yaml' },
      http: { url: 'http://x/api', connection: '', method: 'POST' },
      sql: { connection: 'connection://default/pg', driver: 'postgres', query: 'select 1' },
    });
  });

  it('leaves a type the spec does not use out of the form (null)', () => {
    const f = toFormModel({ name: 'x' }, { file: [{ paths: ['x.json'] }] });
    expect(f).toMatchObject({ namespace: '', schedule: '', labels: [], kubernetes: null, http: null, sql: null });
  });
});

describe('mergeFormIntoSpec', () => {
  it('writes the form back and keeps what the form does not show (transform, other entries, other types)', () => {
    const spec = {
      schedule: '@every 5m',
      retention: { staleItemAge: '2h' },
      file: [{ paths: ['old.yaml'], transform: { exclude: [{ jsonpath: '$.x' }] }, type: 'File' }, { paths: ['second.json'] }],
      aws: [{ region: ['eu-west-1'] }],
    };
    const form = { ...toFormModel(meta, spec), schedule: '@every 15m', file: { paths: ' a.yaml \n\n b/*.json ', ignore: '' } };
    expect(mergeFormIntoSpec(spec, form)).toEqual({
      schedule: '@every 15m',
      retention: { staleItemAge: '2h' },
      file: [{ paths: ['a.yaml', 'b/*.json'], transform: { exclude: [{ jsonpath: '$.x' }] }, type: 'File' }, { paths: ['second.json'] }],
      aws: [{ region: ['eu-west-1'] }],
    });
  });

  it('writes exclusions as lists and drops empty ones', () => {
    const spec = { kubernetes: [{ clusterName: 'a', exclusions: { labels: { tier: 'test' }, kind: ['Event'] } }] };
    const form = { ...toFormModel(meta, spec), schedule: '@hourly' };
    form.kubernetes = { clusterName: 'b', excludeKinds: '', excludeNamespaces: 'kube-system\n!kube-public', excludeNames: '' };
    expect(mergeFormIntoSpec(spec, form).kubernetes).toEqual([
      { clusterName: 'b', exclusions: { labels: { tier: 'test' }, namespace: ['kube-system', '!kube-public'] } },
    ]);
  });

  it('round-trips a spec the form knows without changing it', () => {
    const spec = {
      schedule: '@every 1h',
      http: [{ url: 'http://svc/items', method: 'GET', items: '$.items[*]', id: '$.id' }],
      sql: [{ connection: 'postgres://db', driver: 'mysql', query: 'select * from t' }],
    };
    expect(mergeFormIntoSpec(spec, toFormModel(meta, spec))).toEqual(spec);
  });

  it('a removed section removes that type\'s first entry only', () => {
    const spec = { schedule: '@hourly', http: [{ url: 'a' }, { url: 'b' }], sql: [{ connection: 'c', query: 'q' }] };
    const form = { ...toFormModel(meta, spec), http: null, sql: null };
    expect(mergeFormIntoSpec(spec, form)).toEqual({ schedule: '@hourly', http: [{ url: 'b' }] });
  });

  it('a section added to an empty spec becomes that type\'s list', () => {
    const form = { ...toFormModel(meta, {}), schedule: '@daily', sql: { connection: 'connection://default/pg', driver: 'postgres' as const, query: 'select 1' } };
    expect(mergeFormIntoSpec({}, form)).toEqual({ schedule: '@daily', sql: [{ connection: 'connection://default/pg', driver: 'postgres', query: 'select 1' }] });
  });
});

describe('ScraperFormModel', () => {
  const base = toFormModel(meta, { schedule: '@hourly' });

  it('requires a name and a schedule (spec 001 §5)', () => {
    const r = ScraperFormModel.safeParse({ ...base, name: ' ', schedule: '' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['name', 'This field is required'],
      ['schedule', 'This field is required'],
    ]);
  });

  it('requires a file scraper\'s paths, a SQL query and connection, an HTTP URL or connection', () => {
    const r = ScraperFormModel.safeParse({
      ...base,
      file: { paths: '', ignore: '' },
      sql: { connection: '', driver: 'postgres', query: '' },
      http: { url: '', connection: '', method: 'GET' },
    });
    expect(r.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['file.paths', 'http.url', 'sql.connection', 'sql.query']);
    expect(ScraperFormModel.safeParse({ ...base, http: { url: '', connection: 'connection://default/api', method: 'GET' } }).success).toBe(true);
  });
});

describe('yamlToSpec and splitServerDetails', () => {
  it('takes a YAML object only', () => {
    expect(yamlToSpec('schedule: "@hourly"\nfile: [{paths: [a]}]')).toEqual({ spec: { schedule: '@hourly', file: [{ paths: ['a'] }] } });
    expect(yamlToSpec('- a list')).toEqual({ error: 'The spec must be a YAML object (key: value lines)' });
    expect(yamlToSpec('a: [')).toMatchObject({ error: expect.stringMatching(/^The spec is not valid YAML/) });
    expect(yamlToSpec('  ')).toEqual({ spec: {} });
  });

  it('puts the paths the form shows at their fields and lists every problem by its path', () => {
    expect(
      splitServerDetails({ 'spec.sql[0].query': 'a query is required', 'spec.aws': 'the aws scraper is not supported', name: 'already taken', 'spec.sql.1.query': 'x' }),
    ).toEqual({
      fields: { 'sql.query': 'a query is required', name: 'already taken' },
      listed: ['spec.sql[0].query: a query is required', 'spec.aws: the aws scraper is not supported', 'name: already taken', 'spec.sql.1.query: x'],
    });
    expect(splitServerDetails(null)).toEqual({ fields: {}, listed: [] });
  });
});
