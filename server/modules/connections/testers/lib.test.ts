import { describe, expect, it } from 'vitest';
import { maskUrl, networkFailure, prop } from './lib.js';
import type { HydratedConnection } from './types.js';

describe('networkFailure: what failed, as the user reads it', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, /^connection refused: nothing accepts connections at db\.example:5432$/],
    [{ code: 'ENOTFOUND' }, /^host not found: db\.example does not resolve \(DNS\)$/],
    [{ code: 'EAI_AGAIN' }, /^host not found/],
    [{ code: 'ETIMEDOUT' }, /^timed out connecting to db\.example:5432$/],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, /^TLS: the certificate of db\.example:5432 is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\)/],
    [{ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, /^TLS: /],
    // happy eyeballs: an AggregateError of per-address errors; a driver wrapping the socket error in `cause`
    [Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]), {}), /^connection refused/],
    [new Error('wrapped', { cause: { code: 'ENOTFOUND' } }), /^host not found/],
  ])('%o', (err, message) => {
    expect(networkFailure(err, 'db.example:5432')?.message).toMatch(message);
  });

  it('leaves protocol errors to the tester', () => {
    expect(networkFailure(new Error('syntax error'), 'x:1')).toBeUndefined();
  });
});

describe('maskUrl', () => {
  it('shows a password as ***, also when the url does not parse', () => {
    expect(maskUrl('postgres://u:hunter2@db:5432/x')).toBe('postgres://u:***@db:5432/x');
    expect(maskUrl('http://u@h/')).toBe('http://u@h/');
    expect(maskUrl('weird://u:hunter2@ bad host')).not.toContain('hunter2');
  });
});

describe('prop', () => {
  it('reads the first non-empty property, trimmed', () => {
    const c = { properties: { a: ' ', b: ' x ' } } as unknown as HydratedConnection;
    expect(prop(c, 'a', 'b')).toBe('x');
    expect(prop(c, 'z')).toBeUndefined();
  });
});
