import { describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { MAX_CONTENT_BYTES, resultFromWebhook, webhookCheck, webhookToken, webhookTokenMatches } from './webhook.js';

describe('webhook token', () => {
  it('accepts the configured token (plain or EnvVar value) and nothing else', () => {
    for (const token of ['s3cret-token', { value: 's3cret-token' }]) {
      const spec = webhookCheck.schema.parse({ token });
      expect(webhookTokenMatches(spec, 's3cret-token')).toBe(true);
      expect(webhookTokenMatches(spec, 's3cret-tokeN')).toBe(false);
      expect(webhookTokenMatches(spec, '')).toBe(false);
      expect(webhookTokenMatches(spec, undefined)).toBe(false);
    }
  });

  it('lets anyone push when no token is configured', () => {
    expect(webhookTokenMatches({}, undefined)).toBe(true);
    expect(webhookTokenMatches({ token: { value: '' } }, 'x')).toBe(true);
  });

  it('refuses to guess an unresolved valueFrom', () => {
    expect(() => webhookTokenMatches({ token: { valueFrom: { secretKeyRef: { name: 's', key: 't' } } } }, 'x')).toThrow(/valueFrom/);
  });

  it('reads ?token= first, then the Webhook-Token header', () => {
    expect(webhookToken({ token: 'q' }, { 'webhook-token': 'h' })).toBe('q');
    expect(webhookToken({}, { 'webhook-token': 'h' })).toBe('h');
    expect(webhookToken({ token: '' }, {})).toBeUndefined();
  });
});

describe('resultFromWebhook', () => {
  it('turns a JSON push into a passing result with headers and json as data', () => {
    const r = resultFromWebhook(
      {},
      { headers: { 'Content-Type': 'application/json', 'X-Source': ['ci', 'nightly'] }, json: { status: 'failed', build: 42 } },
    );
    expect(r).toEqual({
      pass: true,
      duration: 0,
      data: { headers: { 'content-type': 'application/json', 'x-source': 'ci, nightly' }, json: { status: 'failed', build: 42 } },
      detail: { headers: { 'content-type': 'application/json', 'x-source': 'ci, nightly' }, json: { status: 'failed', build: 42 } },
    });
  });

  it('keeps a text body as content, cut at the reference limit', () => {
    const r = resultFromWebhook({}, { headers: {}, content: 'é'.repeat(MAX_CONTENT_BYTES) });
    expect(r.pass).toBe(true);
    expect(Buffer.byteLength(r.data.content as string)).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(resultFromWebhook({}, { content: 'ok' }).data).toEqual({ headers: {}, content: 'ok' });
  });

  it('never stores credential headers', () => {
    const r = resultFromWebhook({}, { headers: { Authorization: 'Bearer abc', 'Webhook-Token': 'tok', Cookie: 'sid=1', 'x-ok': '1' }, json: {} });
    expect(JSON.stringify(r)).not.toMatch(/Bearer abc|tok"|sid=1/);
    expect(r.data.headers).toEqual({ authorization: '***', 'webhook-token': '***', cookie: '***', 'x-ok': '1' });
  });

  it('fails an oversized JSON body and a malformed payload', () => {
    const big = resultFromWebhook({}, { json: { blob: 'x'.repeat(2 * 1024 * 1024) } });
    expect(big.pass).toBe(false);
    expect(big.error).toMatch(/too large/);
    expect(big.data.json).toBeUndefined();
    expect(resultFromWebhook({}, { headers: 'nope' } as never)).toMatchObject({ pass: false, invalid: true });
  });
});

describe('webhook check type', () => {
  it('has nothing to run on a schedule and says where results come from', async () => {
    const r = await webhookCheck.run(webhookCheck.schema.parse({ token: 'x' }), checkContext());
    expect(r).toMatchObject({ pass: false, invalid: true, error: expect.stringMatching(/pushed to POST \/api\/canary\/webhook\/:id/) });
  });

  it('rejects a non-string token in its schema', () => {
    expect(webhookCheck.schema.safeParse({ token: 5 }).success).toBe(false);
  });
});
