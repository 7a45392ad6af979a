import { describe, expect, it } from 'vitest';
import { InvalidSpecError, resultFromError } from './result.js';

describe('resultFromError', () => {
  const start = performance.now();

  it('keeps the reason the runner aborted with, and names a bare timeout', () => {
    const runner = new AbortController();
    runner.abort(new Error('timed out after 2500 ms'));
    expect(resultFromError(start, { signal: runner.signal, timeoutMs: 2500 }, new Error('socket hang up')).error).toBe('timed out after 2500 ms');
    const bare = new AbortController();
    bare.abort();
    expect(resultFromError(start, { signal: bare.signal, timeoutMs: 700 }, new Error('x')).error).toBe('timed out after 700 ms');
  });

  it('turns spec errors into invalid results and redacts secrets from target errors', () => {
    const ctx = { signal: new AbortController().signal, timeoutMs: 1000 };
    expect(resultFromError(start, ctx, new InvalidSpecError('url is required'))).toMatchObject({ pass: false, invalid: true, error: 'url is required' });
    const r = resultFromError(start, ctx, new Error('login failed for pw=hunter2'), (s) => s.replace('hunter2', '***'));
    expect(r).toMatchObject({ pass: false, error: 'login failed for pw=***' });
    expect(r.invalid).toBeUndefined();
  });
});
