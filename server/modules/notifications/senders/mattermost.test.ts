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

it('mattermost: /hooks/<token> with text, username and channel', async () => {
  const r = await deliver({ url: 'mattermost://bot@chat.example.com/hooktoken/ops' }, message, opts('mattermost'));
  expect(r).toMatchObject({ ok: true, channel: 'mattermost' });
  const [q] = rec.on('/hooks/hooktoken');
  expect(q.json).toEqual({ text: `#### ${message.title}\n${message.markdown}`, username: 'bot', channel: 'ops' });
});
