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

it('discord: the webhook /api/webhooks/<id>/<token> with one embed', async () => {
  const r = await deliver({ url: 'discord://tok3n@112233' }, message, opts('discord'));
  expect(r).toMatchObject({ ok: true, channel: 'discord' });
  const [q] = rec.on('/api/webhooks/112233/tok3n');
  expect(q.method).toBe('POST');
  expect(q.json).toEqual({ embeds: [{ title: message.title, description: message.markdown }] });
});
