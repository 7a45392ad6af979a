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

it('ntfy: JSON publish with the topic, title and markdown, basic auth', async () => {
  const r = await deliver({ url: 'ntfy://alice:s3cret@ntfy.sh/alerts?Scheme=https&priority=4' }, message, opts('ntfy'));
  expect(r).toMatchObject({ ok: true, channel: 'ntfy' });
  const [q] = rec.on('/');
  expect(q.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
  expect(q.json).toEqual({ topic: 'alerts', title: message.title, message: message.markdown, markdown: true, priority: 4 });
});
