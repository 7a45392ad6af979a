import { describe, expect, it } from 'vitest';
import {
  CONNECTION_TYPES,
  NOTIFICATION_TYPES,
  SECRET_MASK,
  connectionFormSchema,
  connectionFormValues,
  connectionType,
  connectionWriteBody,
  formatSecretValue,
  parseSecretValue,
  secretPropertyKeys,
  secretReferenceProblem,
  selectableConnectionTypes,
  type FieldValues,
} from './connections.js';

/** The URL a notification type's form builds, from its defaults plus `values`. */
function urlOf(type: string, values: FieldValues): string | null {
  const desc = connectionType(type)!;
  return connectionWriteBody(desc, { ...connectionFormValues(desc), name: 'n', ...values }).url;
}

describe('connection types', () => {
  it('lists spec 001 §3: the system types with jmeter hidden, and the 16 notification types', () => {
    for (const t of ['postgres', 'mysql', 'sql_server', 'http', 'prometheus', 'elasticsearch', 'mongo', 'ldap', 'redis', 'windows',
      'google_cloud', 'gcs', 'sftp', 'aws', 's3', 'kubernetes', 'azure_devops', 'azure', 'github', 'gitlab', 'restic', 'smb',
      'dynatrace', 'git', 'folder', 'jmeter']) {
      expect(CONNECTION_TYPES).toContain(t);
    }
    expect([...NOTIFICATION_TYPES].sort()).toEqual(['discord', 'email', 'generic_webhook', 'google_chat', 'ifttt', 'matrix', 'mattermost',
      'ntfy', 'opsgenie', 'pushbullet', 'pushover', 'rocketchat', 'slack', 'teams', 'telegram', 'zulip_chat']);
    const tiles = selectableConnectionTypes().map((t) => t.type);
    expect(tiles).not.toContain('jmeter');
    expect(tiles).toHaveLength(CONNECTION_TYPES.length - 1);
    expect(new Set(CONNECTION_TYPES).size).toBe(CONNECTION_TYPES.length);
  });

  it('gives §5 defaults to new forms', () => {
    const v = (type: string) => connectionFormValues(connectionType(type)!);
    expect(v('email')).toMatchObject({ port: '587', encryptionMethod: 'Auto', authMethod: 'Unknown', namespace: 'default' });
    expect(v('generic_webhook')).toMatchObject({ requestMethod: 'POST', contentType: 'application/json', key: 'message', titleKey: 'title' });
    expect(v('ntfy')).toMatchObject({ host: 'ntfy.sh' });
    expect(v('opsgenie')).toMatchObject({ host: 'api.opsgenie.com', port: '443' });
    expect(v('teams')).toMatchObject({ host: 'outlook.office.com' });
    expect(v('smb')).toMatchObject({ port: '445' });
    expect(v('sftp')).toMatchObject({ port: '22' });
    expect(v('git')).toMatchObject({ ref: 'main', authentication: 'basic' });
    expect(connectionType('slack')!.fields.find((f) => f.name === 'username')!.hint).toContain('Cxxxxxxxxxx');
  });
});

describe('notification URLs', () => {
  it('discord', () => expect(urlOf('discord', { username: '1234' })).toBe('discord://$(password)@$(username)'));
  it('email', () =>
    expect(urlOf('email', { host: 'smtp.example.com', from: 'ops@example.com', fromName: 'Ops Bot', to: 'a@example.com' })).toBe(
      'smtp://$(username):$(password)@smtp.example.com:587/?UseStartTLS=false&SkipTLSVerify=false&Encryption=Auto&Auth=Unknown' +
        '&from=ops%40example.com&fromName=Ops%20Bot&to=a%40example.com',
    ));
  it('email with ExplicitTLS and no recipient', () =>
    expect(urlOf('email', { host: 'mx', port: 25, encryptionMethod: 'ExplicitTLS', insecure_tls: true, from: 'f@x', fromName: 'F' })).toBe(
      'smtp://$(username):$(password)@mx:25/?UseStartTLS=true&SkipTLSVerify=true&Encryption=ExplicitTLS&Auth=Unknown&from=f%40x&fromName=F',
    ));
  it('google chat', () =>
    expect(urlOf('google_chat', { webhook: 'AAAA' })).toBe(
      'googlechat://chat.googleapis.com/v1/spaces/AAAA/messages?key=$(username)&token=$(password)',
    ));
  it('ifttt', () => expect(urlOf('ifttt', { username: 'hook', events: 'a,b' })).toBe('ifttt://$(username)/?events=a%2Cb'));
  it('mattermost with and without user and channel', () => {
    expect(urlOf('mattermost', { username: 'bot', host: 'mm.example.com:8065', channel: 'ops' })).toBe(
      'mattermost://$(username)@mm.example.com:8065/$(password)/ops',
    );
    expect(urlOf('mattermost', { host: 'mm.example.com' })).toBe('mattermost://mm.example.com/$(password)');
  });
  it('matrix', () =>
    expect(urlOf('matrix', { username: 'bot', host: 'matrix.org' })).toBe('matrix://$(username):$(password)@matrix.org/?DisableTLS=false'));
  it('ntfy, https unless insecure', () => {
    expect(urlOf('ntfy', { username: 'u', topic: 'alerts' })).toBe('ntfy://$(username):$(password)@ntfy.sh/alerts?Scheme=https');
    expect(urlOf('ntfy', { topic: 'alerts', insecure_tls: true, host: 'ntfy.local:8080' })).toBe(
      'ntfy://$(username):$(password)@ntfy.local:8080/alerts?Scheme=http',
    );
  });
  it('opsgenie', () => expect(urlOf('opsgenie', {})).toBe('opsgenie://api.opsgenie.com:443/$(password)'));
  it('pushbullet keeps its target path, encoding #', () =>
    expect(urlOf('pushbullet', { targets: 'phone/#ops/a@b.c' })).toBe('pushbullet://$(password)/phone/%23ops/a%40b.c'));
  it('pushover', () => expect(urlOf('pushover', { username: 'ukey' })).toBe('pushover://shoutrrr:$(password)@$(username)/'));
  it('rocketchat', () =>
    expect(urlOf('rocketchat', { user: 'bot', host: 'chat.example.com', port: 443, channel: '#ops' })).toBe(
      'rocketchat://bot@chat.example.com:443/$(username)/$(password)/%23ops',
    ));
  it('slack, with the bot name when given', () => {
    expect(urlOf('slack', { username: 'C0123456789' })).toBe('slack://$(password)@$(username)');
    expect(urlOf('slack', { username: 'C0123456789', BotName: 'Ops Bot' })).toBe('slack://$(password)@$(username)?botname=Ops%20Bot');
  });
  it('teams', () =>
    expect(urlOf('teams', { group: 'g', tenant: 't', altID: 'a', groupOwner: 'o' })).toBe('teams://g@t/a/o?host=outlook.office.com'));
  it('telegram', () =>
    expect(urlOf('telegram', { username: '@ops,12345' })).toBe('telegram://$(password)@telegram/?chats=$(username)'));
  it('zulip keeps the bot mail', () =>
    expect(urlOf('zulip_chat', { username: 'bot@zulip.example.com', host: 'zulip.example.com', stream: 'ops' })).toBe(
      'zulip://$(username):$(password)@zulip.example.com/?stream=ops',
    ));
  it('generic webhook keeps its target and its own query', () => {
    expect(urlOf('generic_webhook', { url: 'https://hooks.example.com/in' })).toBe(
      'generic+https://hooks.example.com/in?ContentType=application%2Fjson&MessageKey=message&TitleKey=title&RequestMethod=POST&DisableTLS=false',
    );
    expect(urlOf('generic_webhook', { url: 'https://h/x?a=1', requestMethod: 'GET' })).toContain('generic+https://h/x?a=1&ContentType=');
  });

  it('a form saved as it came (username shown as ***) builds the same URL', () => {
    for (const type of NOTIFICATION_TYPES) {
      const base = { username: 'C0123', host: 'h', topic: 't', url: 'https://x', webhook: 'w', tenant: 't', altID: 'a', groupOwner: 'o' };
      expect(urlOf(type, { ...base, username: SECRET_MASK }), type).toBe(urlOf(type, base));
    }
  });

  it('every notification type builds a URL with no secret in it', () => {
    for (const type of NOTIFICATION_TYPES) {
      const url = urlOf(type, { username: 'user', password: 's3cr3t-value', host: 'h', topic: 't', url: 'https://x' })!;
      expect(url, type).toMatch(/^[a-z+]+:\/\//);
      expect(url, type).not.toContain('s3cr3t-value');
    }
  });
});

describe('secret values', () => {
  it('parses and formats static values and references', () => {
    expect(parseSecretValue('secret://db/pass')).toEqual({ source: 'secret', name: 'db', key: 'pass' });
    expect(parseSecretValue('configmap://cfg/user.name')).toEqual({ source: 'configmap', name: 'cfg', key: 'user.name' });
    expect(parseSecretValue('hunter2')).toEqual({ source: 'static', value: 'hunter2' });
    expect(parseSecretValue(null)).toEqual({ source: 'static', value: '' });
    expect(formatSecretValue({ source: 'secret', name: 'db', key: 'pass' })).toBe('secret://db/pass');
    expect(formatSecretValue({ source: 'static', value: 'x' })).toBe('x');
  });

  it('names what a reference lacks', () => {
    expect(secretReferenceProblem('secret:///pass')).toBe('Secret name is required');
    expect(secretReferenceProblem('configmap://cfg/')).toBe('ConfigMap key is required');
    expect(secretReferenceProblem('secret://Bad_Name/k')).toMatch(/Kubernetes object name/);
    expect(secretReferenceProblem('secret://db/pass')).toBeNull();
    expect(secretReferenceProblem('plain')).toBeNull();
  });

  it('lists the secret keys kept in properties', () => {
    expect(secretPropertyKeys('restic')).toEqual(['accessKey', 'secretKey']);
    expect(secretPropertyKeys('postgres')).toEqual([]);
  });
});

describe('form and row', () => {
  const pg = connectionType('postgres')!;

  it('round-trips a row through the form', () => {
    const row = { id: '1', name: 'db', namespace: 'ops', type: 'postgres', url: 'postgres://h/db', username: 'app', password: 'secret://db/pass' };
    const values = connectionFormValues(pg, row);
    expect(values).toMatchObject({ name: 'db', namespace: 'ops', url: 'postgres://h/db', username: 'app', password: 'secret://db/pass' });
    expect(connectionWriteBody(pg, values)).toEqual({
      name: 'db', namespace: 'ops', type: 'postgres', url: 'postgres://h/db', username: 'app', password: 'secret://db/pass',
      certificate: null, insecure_tls: false, properties: {},
    });
  });

  it('stores extras in properties, keeps unknown ones, and clears hidden fields', () => {
    const git = connectionType('git')!;
    const body = connectionWriteBody(
      git,
      { name: 'repo', url: 'https://git/x', authentication: 'ssh', username: 'u', password: 'p', certificate: 'KEY', ref: 'dev' },
      { extra: 1, ref: 'main' },
    );
    expect(body).toMatchObject({ username: null, password: null, certificate: 'KEY', properties: { extra: 1, ref: 'dev', authentication: 'ssh' } });
    const sftp = connectionWriteBody(connectionType('sftp')!, { name: 's', url: 'files.example.com', port: '2222', username: 'u', password: 'p' });
    expect(sftp).toMatchObject({ url: 'files.example.com', username: 'u', password: 'p', properties: { port: 2222 } });
  });

  it('validates required fields, numbers, references, and *** only when editing', () => {
    const issues = (values: FieldValues, editing = false) => {
      const r = connectionFormSchema(pg, editing).safeParse({ ...connectionFormValues(pg), ...values });
      return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
    };
    expect(issues({})).toEqual({
      name: 'This field is required', url: 'This field is required', username: 'This field is required', password: 'This field is required',
    });
    expect(issues({ name: 'a', url: 'u', username: 'x', password: 'secret://db/' })).toEqual({ password: 'Secret key is required' });
    expect(issues({ name: 'a', url: 'u', username: 'x', password: SECRET_MASK })).toEqual({ password: 'This field is required' });
    expect(issues({ name: 'a', url: 'u', username: 'x', password: SECRET_MASK }, true)).toEqual({});
    const smb = connectionType('smb')!;
    const r = connectionFormSchema(smb, false).safeParse({ ...connectionFormValues(smb), name: 's', url: 'h', share: 'x', port: 'abc' });
    expect(r.success ? [] : r.error.issues.map((i) => i.message)).toEqual(['This field must be a number']);
  });
});
