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

it('matrix: logs in with the user, then sends an m.text to each joined room', async () => {
  rec.script('/_matrix/client/r0/login', { body: { access_token: 'syt_tok' } });
  rec.script('/_matrix/client/r0/joined_rooms', { body: { joined_rooms: ['!a:example.org', '!b:example.org'] } });
  const r = await deliver({ url: 'matrix://bot:pw@matrix.example.org/?DisableTLS=false' }, message, opts('matrix'));
  expect(r).toMatchObject({ ok: true, channel: 'matrix' });
  expect(rec.on('/_matrix/client/r0/login')[0].json).toEqual({ type: 'm.login.password', identifier: { type: 'm.id.user', user: 'bot' }, password: 'pw' });
  const sends = rec.on(/\/send\/m\.room\.message\//);
  expect(sends.map((q) => decodeURIComponent(q.pathname.split('/')[5]))).toEqual(['!a:example.org', '!b:example.org']);
  expect(sends[0].method).toBe('PUT');
  expect(sends[0].headers.authorization).toBe('Bearer syt_tok');
  expect(sends[0].json).toMatchObject({ msgtype: 'm.text', format: 'org.matrix.custom.html', formatted_body: message.html });
});
