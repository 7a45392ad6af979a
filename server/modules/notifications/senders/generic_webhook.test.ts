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

it('generic webhook: method, content type and keys from the URL, basic auth from its userinfo', async () => {
  const url = `generic+${rec.url.replace('//', '//u:p@')}/hook?x=1&ContentType=application/json&MessageKey=body&TitleKey=subject&RequestMethod=PUT&DisableTLS=false`;
  const r = await deliver({ url, properties: { severity: 'high' } }, message, { attempts: 1 });
  expect(r).toMatchObject({ ok: true, channel: 'generic_webhook' });
  const [q] = rec.on('/hook');
  expect(q.method).toBe('PUT');
  expect(q.query).toEqual({ x: '1' });
  expect(q.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
  expect(q.json).toEqual({ severity: 'high', subject: message.title, body: message.markdown });
});

it('generic webhook: the defaults are POST, application/json, message and title; a 4xx is not retried', async () => {
  rec.script('/plain', { status: 404, body: 'no such hook', times: 1 });
  const r = await deliver({ url: `${rec.url}/plain` }, message, { attempts: 4, backoffMs: 1 });
  expect(r).toMatchObject({ ok: false, attempts: 1 });
  expect(r.error).toContain('404');
  const ok = await deliver({ url: `generic+${rec.url}/plain` }, message, { attempts: 1 });
  expect(ok.ok).toBe(true);
  expect(rec.on('/plain')[1]).toMatchObject({ method: 'POST', json: { title: message.title, message: message.markdown } });
  expect(rec.on('/plain')[1].headers['content-type']).toBe('application/json');
});
