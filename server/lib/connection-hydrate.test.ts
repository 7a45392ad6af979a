import { describe, expect, it } from 'vitest';
import { InvalidSpecError } from './checks/lib/result.js';
import { KeyRefReadError, ValueFromResolver, type KeyRefReader } from './value-from.js';
import { fillPlaceholders, hydrateConnection, isReference, parseKeyRef, referenceProblem } from './connection-hydrate.js';

/** An in-memory cluster: objects by `kind/namespace/name`, and every read recorded. */
function cluster(objects: Record<string, Record<string, string>>) {
  const reads: string[] = [];
  const reader: KeyRefReader = async (kind, ns, name) => {
    const id = `${kind}/${ns}/${name}`;
    reads.push(id);
    const data = objects[id];
    if (!data) throw new KeyRefReadError(`${kind}s "${name}" not found`, 404);
    return data;
  };
  return { reads, objects, resolver: (ttlMs = 60_000, now?: () => number) => new ValueFromResolver({ reader, ttlMs, now }) };
}

describe('references', () => {
  it('tells a reference from a value and names what a malformed one lacks', () => {
    expect(isReference('secret://db/pass')).toBe(true);
    expect(isReference('configmap://cfg/url')).toBe(true);
    expect(isReference('helm://release/key')).toBe(true);
    expect(isReference('serviceaccount://sa')).toBe(true);
    expect(isReference('hunter2')).toBe(false);
    expect(referenceProblem('secret://db/pass')).toBeNull();
    expect(referenceProblem('secret://foo')).toBe('expected secret://<name>/<key>');
    expect(referenceProblem('secret:///k')).toBe('expected secret://<name>/<key>');
    expect(referenceProblem('configmap://a/b/c')).toBe('expected configmap://<name>/<key>');
    expect(referenceProblem('serviceaccount://')).toBe('expected serviceaccount://<name>');
    expect(parseKeyRef('secret://db/pass')).toEqual({ kind: 'secret', name: 'db', key: 'pass' });
    expect(parseKeyRef('helm://r/k')).toBeNull();
  });

  it('fills known placeholders and leaves unknown ones', () => {
    expect(fillPlaceholders('postgres://$(username):$(password)@h:$(port)/$(db)', { username: 'u', password: 'p', port: '5432' }))
      .toBe('postgres://u:p@h:5432/$(db)');
  });
});

describe('hydrateConnection', () => {
  it('reads secret:// and configmap:// from the connection\'s namespace and fills the url', async () => {
    const c = cluster({
      'secret/team-a/db': { user: 'app', pass: 's3cr3t-pass' },
      'configmap/team-a/cfg': { host: 'db.internal' },
      'secret/team-a/hook': { token: 'tok-123' },
    });
    const h = await hydrateConnection({
      id: 'x1', name: 'pg', namespace: 'team-a', type: 'postgres',
      url: 'postgres://$(username):$(password)@$(host):5432/app',
      username: 'secret://db/user', password: 'secret://db/pass', certificate: null, insecure_tls: false,
      properties: { host: 'configmap://cfg/host', token: 'secret://hook/token', port: 5432 },
    }, { valueFrom: c.resolver() });
    expect(h).toMatchObject({
      id: 'x1', name: 'pg', namespace: 'team-a', type: 'postgres', username: 'app', password: 's3cr3t-pass', certificate: '',
      url: 'postgres://app:s3cr3t-pass@db.internal:5432/app', insecure_tls: false,
      properties: { host: 'db.internal', token: 'tok-123', port: '5432' },
    });
    expect(h.secrets).toEqual(expect.arrayContaining(['s3cr3t-pass', 'tok-123', 'app']));
    expect(h.secrets).not.toContain('db.internal');
    expect(c.reads.every((r) => r.includes('/team-a/'))).toBe(true);
  });

  it('passes static values through and lists the secret ones to mask', async () => {
    const h = await hydrateConnection({
      name: 'web', namespace: null, type: 'http', url: 'https://u:in-url-pass@example.test/x', username: 'u', password: 'pw-static',
      certificate: '-----BEGIN CERT-----', properties: { apiKey: 'k-static', region: 'eu' },
    });
    expect(h.namespace).toBe('default');
    expect(h.password).toBe('pw-static');
    expect(h.secrets.sort()).toEqual(['-----BEGIN CERT-----', 'in-url-pass', 'k-static', 'pw-static'].sort());
  });

  it('a CR spec valueFrom wins over the column label', async () => {
    const c = cluster({ 'secret/ns1/cr': { p: 'from-spec' } });
    const h = await hydrateConnection({
      name: 'cr', namespace: 'ns1', type: 'postgres', url: 'postgres://h/db', password: 'secret://cr/p',
      spec: { password: { valueFrom: { secretKeyRef: { name: 'cr', key: 'p' } } } },
    }, { valueFrom: c.resolver() });
    expect(h.password).toBe('from-spec');
  });

  it('a rotated Secret is read again once the cache time has passed', async () => {
    const c = cluster({ 'secret/ns/db': { pass: 'one' } });
    let now = 0;
    const resolver = c.resolver(1000, () => now);
    const row = { name: 'pg', namespace: 'ns', type: 'postgres', password: 'secret://db/pass' };
    expect((await hydrateConnection(row, { valueFrom: resolver })).password).toBe('one');
    c.objects['secret/ns/db'] = { pass: 'two' };
    now = 500;
    expect((await hydrateConnection(row, { valueFrom: resolver })).password).toBe('one');
    now = 1500;
    expect((await hydrateConnection(row, { valueFrom: resolver })).password).toBe('two');
  });

  it('refuses what cannot be read, naming the connection and field, never a value', async () => {
    const c = cluster({ 'secret/ns/db': { pass: 'value-never-shown' } });
    const base = { name: 'pg', namespace: 'ns', type: 'postgres' };
    await expect(hydrateConnection({ ...base, password: 'secret://missing/pass' }, { valueFrom: c.resolver() }))
      .rejects.toThrow(/connection ns\/pg: password: secret ns\/missing not found/);
    await expect(hydrateConnection({ ...base, password: 'secret://db/other' }, { valueFrom: c.resolver() }))
      .rejects.toThrow(/key "other" not found in secret ns\/db/);
    await expect(hydrateConnection({ ...base, password: 'secret://db' }, { valueFrom: c.resolver() }))
      .rejects.toThrow('connection ns/pg: password: expected secret://<name>/<key>');
    await expect(hydrateConnection({ ...base, password: 'helm://r/k' }, { valueFrom: c.resolver() }))
      .rejects.toThrow(/helm:\/\/ references are not supported/);
    const noCluster = hydrateConnection({ ...base, password: 'secret://db/pass' });
    await expect(noCluster).rejects.toBeInstanceOf(InvalidSpecError);
    await expect(noCluster).rejects.toThrow(/Kubernetes cluster connection/);
  });
});
