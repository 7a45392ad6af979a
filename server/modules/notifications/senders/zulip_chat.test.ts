import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRecorder, type HttpRecorder } from '../../../../tests/support/http-recorder.js';
import type { NotificationMessage } from '../types.js';
import { deliver } from './index.js';

const message: NotificationMessage = { title: 'Check web is unhealthy', markdown: '**web** failed: timeout', text: 'web failed: timeout', html: '<p><strong>web</strong> failed: timeout</p>' };
let rec: HttpRecorder;
beforeAll(async () => {
  rec = await startRecorder();
});
afterAll(() => rec.close());
const opts = (service: string) => ({ endpoints: { [service]: rec.url }, attempts: 1, timeoutMs: 5000 });

it('zulip: /api/v1/messages, a stream message with basic auth', async () => {
  const r = await deliver({ url: 'zulip://bot%40example.com:k3y@zulip.example.com/?stream=ops&topic=alerts' }, message, opts('zulip_chat'));
  expect(r).toMatchObject({ ok: true, channel: 'zulip_chat' });
  const [q] = rec.on('/api/v1/messages');
  expect(q.headers.authorization).toBe(`Basic ${Buffer.from('bot@example.com:k3y').toString('base64')}`);
  expect(q.form).toEqual({ type: 'stream', to: 'ops', topic: 'alerts', content: `**${message.title}**\n${message.markdown}` });
});
