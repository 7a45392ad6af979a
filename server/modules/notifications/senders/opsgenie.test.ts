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

it('opsgenie: /v2/alerts with GenieKey auth, the title as message', async () => {
  const r = await deliver({ url: 'opsgenie://api.opsgenie.com:443/ap1key?priority=P2&tags=a,b' }, message, opts('opsgenie'));
  expect(r).toMatchObject({ ok: true, channel: 'opsgenie' });
  const [q] = rec.on('/v2/alerts');
  expect(q.headers.authorization).toBe('GenieKey ap1key');
  expect(q.json).toEqual({ message: message.title, description: message.text, priority: 'P2', tags: ['a', 'b'] });
});
