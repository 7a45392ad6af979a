import { describe, expect, it } from 'vitest';
import { SECRET_MASK, SecretMasker } from './secret-mask.js';

const masker = (...secrets: string[]) => {
  const m = new SecretMasker();
  for (const s of secrets) m.add(s);
  return m;
};

/** Feeds `text` to a stream masker in chunks of `size` and joins what it released. */
function streamed(m: SecretMasker, text: string, size: number): string {
  const s = m.stream();
  let out = '';
  for (let i = 0; i < text.length; i += size) out += s.push(text.slice(i, i + size));
  return out + s.end();
}

describe('SecretMasker', () => {
  it('masks every added secret, longest first, and ignores values under 3 characters', () => {
    const m = masker('hunter2', 'hunter22', 'ab', '', null as unknown as string, undefined as unknown as string);
    expect(m.mask('pw=hunter22 or hunter2; ab stays')).toBe(`pw=${SECRET_MASK} or ${SECRET_MASK}; ab stays`);
    expect(m.size).toBe(2);
  });

  it('masks regular-expression characters literally', () => {
    expect(masker('a.b*c(d)$').mask('x a.b*c(d)$ aXbbc')).toBe('x *** aXbbc');
  });

  it('masks base64 (padded or not, URL-safe) and URL-encoded forms', () => {
    const secret = 's3cr et/?>';
    const m = masker(secret);
    const b64 = Buffer.from(secret).toString('base64');
    const b64url = Buffer.from(secret).toString('base64url');
    expect(b64).not.toBe(b64url);
    expect(m.mask(`a ${b64} b ${b64url} c ${encodeURIComponent(secret)} d ${encodeURIComponent(secret).replace(/%20/g, '+')}`))
      .not.toMatch(/s3cr|czNj|%20et/);
    expect(m.mask(`Authorization: Basic ${b64}`)).toBe('Authorization: Basic ***==');
  });

  it('masks a secret escaped in a JSON string', () => {
    const m = masker('multi\nline "quoted" \\ secret');
    expect(m.mask(JSON.stringify({ password: 'multi\nline "quoted" \\ secret' }))).toBe('{"password":"***"}');
  });

  it('masks strings deep inside results and errors, keeping keys and other values', () => {
    const m = masker('tok-123');
    expect(m.maskDeep({ stdout: 'tok-123\n', n: 1, ok: true, nil: null, list: ['a tok-123', { k: 'tok-123' }] })).toEqual({
      stdout: '***\n', n: 1, ok: true, nil: null, list: ['a ***', { k: '***' }],
    });
    expect(masker().maskDeep({ a: 'tok-123' })).toEqual({ a: 'tok-123' });
  });

  it('masks a secret split across chunk boundaries, whatever the chunk size', () => {
    const m = masker('correct-horse', 'battery');
    const text = 'line 1 correct-horse\nbattery staple correct-hors correct-horse-battery\nbatter\n';
    const whole = m.mask(text);
    expect(whole).toBe('line 1 ***\n*** staple correct-hors ***-***\nbatter\n');
    for (let size = 1; size <= text.length; size++) expect(streamed(m, text, size)).toBe(whole);
  });

  it('holds back at most the longest secret minus one character', () => {
    const m = masker('abcdef');
    const s = m.stream();
    expect(s.push('xxxxabcde')).toBe('xxxx');
    expect(s.push('Z')).toBe('abcdeZ');
    expect(s.push('abcd')).toBe('');
    expect(s.push('ef tail')).toBe('*** tail');
    expect(s.push('no secret here')).toBe('no secret here');
    expect(s.end()).toBe('');
    const held = masker('abcdef').stream();
    const released = held.push('q'.repeat(100) + 'a'.repeat(20));
    expect(released.length).toBeGreaterThanOrEqual(120 - 5);
  });

  it('masks secrets added after a stream started', () => {
    const m = masker('first');
    const s = m.stream();
    expect(s.push('first ')).toBe('*** ');
    m.add('second');
    expect(s.push('a second')).toBe('a ***');
    expect(s.push(' secon')).toBe(' ');
    expect(s.end()).toBe('secon');
  });
});
