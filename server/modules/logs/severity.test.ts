import { describe, expect, it } from 'vitest';
import { guessSeverity, normaliseSeverity } from './severity.js';

describe('log severity', () => {
  it('guesses from level words, keyed fields and klog prefixes', () => {
    expect(guessSeverity('2026-11-27T06:00:00Z ERROR payment failed')).toBe('error');
    expect(guessSeverity('level=warn msg="slow"')).toBe('warn');
    expect(guessSeverity('{"level":30,"msg":"up"}')).toBe('info');
    expect(guessSeverity('E1127 06:00:00.000000 1 main.go:1] boom')).toBe('error');
    expect(guessSeverity('nothing to see')).toBeUndefined();
  });

  it('sees a level word through ANSI colour codes', () => {
    expect(guessSeverity('\x1b[31mERROR\x1b[0m payment failed')).toBe('error');
    expect(guessSeverity('12:00:01 \x1b[1;33mWARN\x1b[0m disk 91%')).toBe('warn');
  });

  it('normalises mapped field values', () => {
    expect(normaliseSeverity('Warning')).toBe('warn');
    expect(normaliseSeverity(50)).toBe('error');
    expect(normaliseSeverity('nope')).toBeUndefined();
  });
});
