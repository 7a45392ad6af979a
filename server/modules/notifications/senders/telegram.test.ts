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

it('telegram: sendMessage per chat with the bot token in the path', async () => {
  const r = await deliver({ url: 'telegram://110201543%3AAAHdqTcv@telegram/?chats=@ops,-1001' }, message, opts('telegram'));
  expect(r).toMatchObject({ ok: true, channel: 'telegram' });
  const qs = rec.on('/bot110201543:AAHdqTcv/sendMessage');
  expect(qs.map((q) => (q.json as { chat_id: string }).chat_id)).toEqual(['@ops', '-1001']);
  expect(qs[0].json).toMatchObject({ parse_mode: 'HTML', text: `<b>${message.title}</b>\n${message.text}` });
});
