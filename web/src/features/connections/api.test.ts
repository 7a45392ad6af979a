import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api-client';
import { TEST_TEXT, testOutcome } from './api';

describe('testOutcome (spec 001 §8 connection test texts)', () => {
  it('says what a failed test answered', () => {
    expect(testOutcome(new ApiError(400, 'http_400', 'connection refused (127.0.0.1:5)'))).toEqual({
      ok: false,
      message: 'connection refused (127.0.0.1:5)',
    });
    expect(testOutcome(new ApiError(400, 'http_400', ''))).toEqual({ ok: false, message: TEST_TEXT.failed });
  });

  it('formats a JSON error', () => {
    const out = testOutcome(new ApiError(400, 'http_400', '{"error":"auth failed","code":28}'));
    expect(out).toEqual({ ok: false, message: TEST_TEXT.failed, json: '{\n  "error": "auth failed",\n  "code": 28\n}' });
  });

  it('names unsupported types, and anything else as a failed test', () => {
    expect(testOutcome(new ApiError(501, 'not_implemented', 'testing slack connections is not supported'))).toEqual({
      ok: false,
      message: 'We currently do not support testing this connection type',
    });
    expect(testOutcome(new ApiError(500, 'internal', 'boom'))).toEqual({ ok: false, message: 'Testing connection failed!' });
    expect(testOutcome(new ApiError(0, 'network', 'Network Error. Please try again.'))).toEqual({ ok: false, message: 'Testing connection failed!' });
    expect(testOutcome(new Error('x'))).toEqual({ ok: false, message: 'Testing connection failed!' });
  });
});
