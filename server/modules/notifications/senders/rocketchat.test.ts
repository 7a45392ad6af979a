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

it('rocketchat: /hooks/<token a>/<token b> with text and #channel', async () => {
  const r = await deliver({ url: 'rocketchat://bot@rc.example.com:3000/tokA/tokB/general' }, message, opts('rocketchat'));
  expect(r).toMatchObject({ ok: true, channel: 'rocketchat' });
  const [q] = rec.on('/hooks/tokA/tokB');
  expect(q.json).toEqual({ text: `*${message.title}*\n${message.markdown}`, channel: '#general', username: 'bot' });
});
