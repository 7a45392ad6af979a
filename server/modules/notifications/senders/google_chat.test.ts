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

it('google chat: the space\'s webhook with key and token kept, a text message', async () => {
  const r = await deliver({ url: 'googlechat://chat.googleapis.com/v1/spaces/AAA/messages?key=k1&token=t1' }, message, opts('google_chat'));
  expect(r).toMatchObject({ ok: true, channel: 'google_chat' });
  const [q] = rec.on('/v1/spaces/AAA/messages');
  expect(q.query).toEqual({ key: 'k1', token: 't1' });
  expect(q.json).toEqual({ text: `*${message.title}*\n${message.text}` });
});
