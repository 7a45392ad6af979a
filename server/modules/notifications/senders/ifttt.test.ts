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

it('ifttt: the Maker webhook per event with value1 title, value2 text', async () => {
  const r = await deliver({ url: 'ifttt://hookkey/?events=down,page' }, message, opts('ifttt'));
  expect(r).toMatchObject({ ok: true, channel: 'ifttt' });
  expect(rec.on('/trigger/down/with/key/hookkey')[0].json).toEqual({ value1: message.title, value2: message.text, value3: '' });
  expect(rec.on('/trigger/page/with/key/hookkey')).toHaveLength(1);
});
