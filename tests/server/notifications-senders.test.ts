import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import type { FieldValues } from '../../server/contracts/connection-fields.js';
import { NOTIFICATION_CONNECTION_TYPES, PASSWORD, USERNAME } from '../../server/contracts/notification-connection-types.js';
import { buildNotificationUrl, NOTIFICATION_DEFAULTS, parseNotificationUrl } from '../../server/contracts/notification-connections.js';
import { createTestDb, insertConnection, type TestDb } from '../../server/modules/playbooks/actions/test-context.js';
import type { NotificationMessage } from '../../server/modules/notifications/types.js';
import {
  channelOf, configureSenders, deliver, maskUrl, resolveTarget, senderSettingsOf, setPerHostLimit, systemEmailTarget,
} from '../../server/modules/notifications/senders/index.js';
import { startRecorder, type HttpRecorder } from '../support/http-recorder.js';
import { until } from '../support/poll.js';

const message: NotificationMessage = { title: 'Check web is unhealthy', markdown: '**web** failed', text: 'web failed', html: '<p>web failed</p>' };
const U = USERNAME;
const P = PASSWORD;

/** Form values per type, as the connection dialog holds them (the column fields as the placeholders the URL keeps). */
const SAMPLES: Record<string, FieldValues> = {
  discord: { username: U, password: P },
  email: { host: 'smtp.example.com', port: 2525, insecure_tls: true, username: U, password: P, from: 'ops@example.com', fromName: 'Ops Console', to: 'a@example.com,b@example.com', encryptionMethod: 'ExplicitTLS', authMethod: 'Plain' },
  google_chat: { username: U, password: P, webhook: 'AAAA bbb' },
  ifttt: { username: U, events: 'down,page' },
  mattermost: { username: U, host: 'chat.example.com:8065', password: P, channel: 'ops team' },
  matrix: { username: U, password: P, host: 'matrix.example.org:8448', insecure_tls: true },
  ntfy: { username: U, password: P, host: 'ntfy.example.com', topic: 'alerts/x', insecure_tls: true },
  opsgenie: { host: 'api.eu.opsgenie.com', port: 8443, password: P },
  pushbullet: { password: P, targets: 'dev1/#ops/me@example.com' },
  pushover: { username: U, password: P },
  rocketchat: { user: 'bot', host: 'rc.example.com', port: 3000, username: U, password: P, channel: 'general' },
  slack: { username: U, password: P, BotName: 'Ops Bot' },
  teams: { group: 'g@1', tenant: 'tenant-1', altID: 'alt', groupOwner: 'owner', host: 'example.webhook.office.com' },
  telegram: { password: P, username: U },
  zulip_chat: { username: U, password: P, host: 'zulip.example.com', stream: 'ops', topic: 'alerts & pages' },
  generic_webhook: { url: 'https://hooks.example.com/in?src=console', contentType: 'text/plain', requestMethod: 'GET', key: 'body', titleKey: 'subject', insecure_tls: false },
};

describe('notification URLs (server/contracts/notification-connections.ts)', () => {
  it('has a sample for every notification type', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(NOTIFICATION_CONNECTION_TYPES.map((t) => t.type).sort());
  });

  for (const [type, values] of Object.entries(SAMPLES)) {
    it(`${type}: parse(build(fields)) = fields`, () => {
      const url = buildNotificationUrl(type, values);
      expect(parseNotificationUrl(url)).toEqual({ type, values });
      expect(channelOf(url)).toBe(type);
    });
  }

  it('spec 001 §5 defaults: email 587 Auto/Unknown, webhook POST application/json message/title, ntfy.sh, opsgenie 443', () => {
    expect(parseNotificationUrl(buildNotificationUrl('email', { host: 'h', username: U, password: P, from: 'f@x', fromName: 'F' }))!.values)
      .toMatchObject({ port: 587, encryptionMethod: 'Auto', authMethod: 'Unknown' });
    expect(parseNotificationUrl(buildNotificationUrl('generic_webhook', { url: 'https://h/x' }))!.values)
      .toMatchObject({ requestMethod: 'POST', contentType: 'application/json', key: 'message', titleKey: 'title' });
    expect(parseNotificationUrl(buildNotificationUrl('ntfy', { topic: 't', username: U, password: P }))!.values).toMatchObject({ host: 'ntfy.sh' });
    expect(parseNotificationUrl(buildNotificationUrl('opsgenie', { password: P }))!.values).toMatchObject({ host: 'api.opsgenie.com', port: 443 });
    expect(NOTIFICATION_DEFAULTS.email.port).toBe(587);
  });

  it('channelOf and maskUrl: the service, and credentials as ***', () => {
    expect(channelOf('smtps://h:465/')).toBe('email');
    expect(channelOf('https://h/x')).toBe('generic_webhook');
    expect(channelOf('foo://bar')).toBe('foo');
    expect(maskUrl('slack://xoxb-1-2-secret@C0123?botname=b')).toBe('slack://***@C0123?botname=b');
    expect(maskUrl('slack://$(password)@$(username)')).toBe('slack://$(password)@$(username)');
    expect(maskUrl('smtp://user:pa55@h:25/?to=a%40b')).toBe('smtp://***:***@h:25/?to=a%40b');
    expect(maskUrl('opsgenie://api.opsgenie.com:443/k3y')).toBe('opsgenie://api.opsgenie.com:443/***');
    expect(maskUrl('mattermost://chat.example.com/t0k/ops')).toBe('mattermost://chat.example.com/***/ops');
    expect(maskUrl('pushbullet://acc3ss/dev1')).toBe('pushbullet://***/dev1');
    expect(maskUrl('googlechat://chat.googleapis.com/v1/spaces/A/messages?key=k1&token=t1')).toBe('googlechat://chat.googleapis.com/v1/spaces/A/messages?key=***&token=***');
    expect(maskUrl('generic+https://u:p@h/x?apikey=zz&a=1')).toBe('generic+https://***:***@h/x?apikey=***&a=1');
  });

  it('NOTIFICATION_ENDPOINTS and SMTP_* reach the senders\' settings', () => {
    const c = loadConfig({ DEMO_DATA: 'false', NOTIFICATION_ENDPOINTS: '{"slack":"http://127.0.0.1:1"}', SMTP_HOST: 'mail.example.com', SMTP_FROM: 'ops@example.com' });
    expect(senderSettingsOf(c)).toEqual({
      endpoints: { slack: 'http://127.0.0.1:1' },
      smtp: { host: 'mail.example.com', port: 587, username: undefined, password: undefined, from: 'ops@example.com', encryption: 'Auto' },
    });
    expect(() => loadConfig({ NOTIFICATION_ENDPOINTS: '[1]' })).toThrow(/NOTIFICATION_ENDPOINTS/);
  });
});

describe('deliver: retries, timeouts, per-host limits', () => {
  let rec: HttpRecorder;
  let other: HttpRecorder;
  beforeAll(async () => {
    [rec, other] = await Promise.all([startRecorder(), startRecorder()]);
  });
  afterAll(async () => {
    setPerHostLimit(8);
    await Promise.all([rec.close(), other.close()]);
  });

  it('a 500 is retried, then reported with the attempts, never the token', async () => {
    rec.script('/api/chat.postMessage', { status: 500, body: 'boom' });
    const r = await deliver({ url: 'slack://xoxb-very-secret@C1' }, message, { endpoints: { slack: rec.url }, attempts: 4, backoffMs: 5 });
    expect(r).toMatchObject({ ok: false, channel: 'slack', attempts: 4 });
    expect(r.error).toContain('500');
    expect(r.error).not.toContain('xoxb-very-secret');
    expect(rec.on('/api/chat.postMessage')).toHaveLength(4);
    rec.clear();
  });

  it('a 429 then a 200: sent on the second attempt', async () => {
    rec.script('/hooks/t', { status: 429, times: 1 });
    const r = await deliver({ url: 'mattermost://h/t' }, message, { endpoints: { mattermost: rec.url }, backoffMs: 5 });
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    rec.clear();
  });

  it('a host that never answers times out (retried, then an error)', async () => {
    rec.script('/hang', { hang: true });
    const r = await deliver({ url: `${rec.url}/hang` }, message, { attempts: 2, backoffMs: 5, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, attempts: 2 });
    expect(r.error).toMatch(/did not answer in time/);
    rec.clear();
  });

  it('a hanging host fills only its own slots: another host is served meanwhile', async () => {
    setPerHostLimit(2);
    rec.script('/slow', { hang: true });
    const hung = [1, 2, 3].map(() => deliver({ url: `${rec.url}/slow` }, message, { attempts: 1, timeoutMs: 8000 }));
    // two hang in the host's two slots; the third waits for one; the other host answers at once
    await until(async () => rec.on('/slow').length === 2, 'two calls to the hanging host');
    const ok = await deliver({ url: `${other.url}/fast` }, message, { attempts: 1, timeoutMs: 8000 });
    expect(ok.ok).toBe(true);
    expect(rec.on('/slow')).toHaveLength(2);
    await rec.close();
    const results = await Promise.all(hung);
    expect(results.every((r) => !r.ok)).toBe(true);
    rec = await startRecorder();
  });

  it('a hanging destination takes one slot of its host once it timed out: another path on the same host is sent at once', async () => {
    setPerHostLimit(3);
    rec.script('/dead', { hang: true });
    // the first call times out: /dead is now suspect
    const first = await deliver({ url: `${rec.url}/dead` }, message, { attempts: 1, timeoutMs: 300 });
    expect(first).toMatchObject({ ok: false });
    expect(first.error).toMatch(/did not answer in time/);
    // five more sends to it: one in flight, the others wait for that slot (not the host's)
    let settled = 0;
    const hung = [1, 2, 3, 4, 5].map(() => deliver({ url: `${rec.url}/dead` }, message, { attempts: 1, timeoutMs: 15_000 }).finally(() => settled++));
    await until(async () => rec.on('/dead').length === 2, 'the second call to /dead');
    const ok = await Promise.all([1, 2, 3].map(() => deliver({ url: `${rec.url}/alive` }, message, { attempts: 1, timeoutMs: 15_000 })));
    expect(ok.every((r) => r.ok)).toBe(true);
    expect(settled).toBe(0); // sent while every call to /dead still waits or hangs
    expect(rec.on('/dead')).toHaveLength(2);
    expect(rec.on('/alive')).toHaveLength(3);
    await rec.close(); // ends the hanging call; the waiting ones then fail fast against the closed port
    const results = await Promise.all(hung);
    expect(results.every((r) => !r.ok)).toBe(true);
    rec = await startRecorder();
  }, 20_000);

  it('an unknown scheme is an error at once', async () => {
    expect(await deliver({ url: 'carrier-pigeon://coop' }, message)).toMatchObject({ ok: false, attempts: 0, channel: 'carrier-pigeon' });
  });
});

describe('resolveTarget and systemEmailTarget', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(() => db.close());

  it('fills $(username)/$(password) from the connection row, encoded, and merges properties', async () => {
    const id = await insertConnection(db.pool, { name: 'ops-slack', namespace: 'ops', type: 'slack', url: 'slack://$(password)@$(username)', username: 'C0123', password: 'xoxb-a/b@c', properties: { BotName: 'b' } });
    const t = await resolveTarget(db.pool, { connection: 'connection://ops/ops-slack', properties: { to: 'x' } });
    expect(t).toEqual({ url: 'slack://xoxb-a%2Fb%40c@C0123', properties: { BotName: 'b', to: 'x' }, connectionId: id });
    expect(parseNotificationUrl(t.url)!.values).toMatchObject({ password: 'xoxb-a/b@c', username: 'C0123' });
    expect((await resolveTarget(db.pool, { connection: id })).url).toBe(t.url);
    expect(await resolveTarget(db.pool, { url: 'https://h/x' })).toEqual({ url: 'https://h/x', properties: {}, connectionId: null });
    await expect(resolveTarget(db.pool, { connection: 'connection://ops/missing' })).rejects.toThrow('connection connection://ops/missing not found');
  });

  it('a notification connection without a url is built from its properties', async () => {
    await insertConnection(db.pool, { name: 'og', type: 'opsgenie', password: 'k3y', properties: { host: 'api.opsgenie.com', port: 443 } });
    expect((await resolveTarget(db.pool, { connection: 'og' })).url).toBe('opsgenie://api.opsgenie.com:443/k3y');
  });

  it('system email: SMTP_* without a `system` connection, the connection when there is one, null with neither', async () => {
    configureSenders({ smtp: null });
    expect(await systemEmailTarget(db.pool, 'a@example.com')).toBeNull();
    configureSenders({ smtp: { host: 'mail.example.com', port: 25, username: 'u', password: 'p w', from: 'ops@example.com', encryption: 'None' } });
    const env = await systemEmailTarget(db.pool, 'a@example.com');
    expect(env!.properties).toEqual({ to: 'a@example.com' });
    expect(parseNotificationUrl(env!.url)!.values).toMatchObject({ host: 'mail.example.com', port: 25, username: 'u', password: 'p w', from: 'ops@example.com', encryptionMethod: 'None' });
    await insertConnection(db.pool, { name: 'system', type: 'email', url: 'smtp://$(username):$(password)@smtp.example.com:587/?from=sys%40example.com', username: 'sys', password: 'pw' });
    const sys = await systemEmailTarget(db.pool, 'b@example.com');
    expect(sys!.url).toBe('smtp://sys:pw@smtp.example.com:587/?from=sys%40example.com');
    expect(sys!.properties).toEqual({ to: 'b@example.com' });
    configureSenders({ smtp: null });
  });
});
