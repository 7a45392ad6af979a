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

it('slack: chat.postMessage with the bot token, the channel and the blocks', async () => {
  const r = await deliver({ url: 'slack://xoxb-123-456-abc@C0123?botname=console' }, { ...message, slack: { text: 'fallback', blocks: [{ type: 'section' }] } }, opts('slack'));
  expect(r).toMatchObject({ ok: true, channel: 'slack', attempts: 1 });
  const [q] = rec.on('/api/chat.postMessage');
  expect(q.method).toBe('POST');
  expect(q.headers.authorization).toBe('Bearer xoxb-123-456-abc');
  expect(q.json).toEqual({ channel: 'C0123', text: 'fallback', blocks: [{ type: 'section' }], username: 'console' });
});

it('slack: an {ok: false} answer is an error naming Slack\'s reason, never the token', async () => {
  rec.script('/api/chat.postMessage', { body: { ok: false, error: 'channel_not_found' }, times: 1 });
  const r = await deliver({ url: 'slack://xoxb-secret-token@C9' }, message, opts('slack'));
  expect(r.ok).toBe(false);
  expect(r.error).toContain('channel_not_found');
  expect(r.error).not.toContain('xoxb-secret-token');
});

it('slack: shoutrrr\'s webhook form posts to /services/a/b/c', async () => {
  const r = await deliver({ url: 'slack://hook:T000-B000-XXXX@webhook' }, message, opts('slack'));
  expect(r.ok).toBe(true);
  const [q] = rec.on('/services/T000/B000/XXXX');
  expect((q.json as { text: string }).text).toContain('Check web is unhealthy');
});
