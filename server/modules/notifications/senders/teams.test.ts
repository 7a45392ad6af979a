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

it('teams: the webhookb2 path with a MessageCard (or the message\'s own card)', async () => {
  const r = await deliver({ url: 'teams://grp@tnt/alt/own?host=example.webhook.office.com' }, message, opts('teams'));
  expect(r).toMatchObject({ ok: true, channel: 'teams' });
  const [q] = rec.on('/webhookb2/grp@tnt/IncomingWebhook/alt/own');
  expect(q.json).toMatchObject({ '@type': 'MessageCard', title: message.title, text: message.markdown });
  await deliver({ url: 'teams://grp@tnt/alt/own2' }, { ...message, teams: { type: 'message', attachments: [] } }, opts('teams'));
  expect(rec.on('/webhookb2/grp@tnt/IncomingWebhook/alt/own2')[0].json).toEqual({ type: 'message', attachments: [] });
});
