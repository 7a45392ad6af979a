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

it('pushover: /1/messages.json as a form with token, user, title and message', async () => {
  const r = await deliver({ url: 'pushover://shoutrrr:apptoken@userkey/?devices=phone' }, message, opts('pushover'));
  expect(r).toMatchObject({ ok: true, channel: 'pushover' });
  const [q] = rec.on('/1/messages.json');
  expect(q.form).toEqual({ token: 'apptoken', user: 'userkey', title: message.title, message: message.text, device: 'phone' });
});
