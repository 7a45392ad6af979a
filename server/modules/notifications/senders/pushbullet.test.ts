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

it('pushbullet: /v2/pushes with Access-Token, a note per target kind', async () => {
  const r = await deliver({ url: 'pushbullet://acc3ss/dev1/%23ops/me@example.com' }, message, opts('pushbullet'));
  expect(r).toMatchObject({ ok: true, channel: 'pushbullet' });
  const qs = rec.on('/v2/pushes');
  expect(qs.map((q) => q.headers['access-token'])).toEqual(['acc3ss', 'acc3ss', 'acc3ss']);
  expect(qs.map((q) => q.json)).toEqual([
    { type: 'note', title: message.title, body: message.text, device_iden: 'dev1' },
    { type: 'note', title: message.title, body: message.text, channel_tag: 'ops' },
    { type: 'note', title: message.title, body: message.text, email: 'me@example.com' },
  ]);
});
