import { describe, expect, it } from 'vitest';
import { ansiLine, ansiLines, isSafeHref } from './ansi';

describe('ANSI tokens', () => {
  it('keeps the named colours and decorations as tokens', () => {
    expect(ansiLine('\u001b[31mred\u001b[0m plain \u001b[1;92mbold')).toEqual([
      { text: 'red', color: 'red' },
      { text: ' plain ' },
      { text: 'bold', color: 'bright-green', bold: true },
    ]);
  });

  it('drops 256-colour and true-colour escapes but keeps their text', () => {
    expect(ansiLine('\u001b[38;5;200mx\u001b[38;2;1;2;3my')).toEqual([{ text: 'x' }, { text: 'y' }]);
  });

  it('makes links of http and https URLs only', () => {
    const segs = ansiLine('see https://example.com/a?b=1. and javascript://alert(1) or file:///etc/passwd');
    expect(segs.filter((s) => s.href).map((s) => s.href)).toEqual(['https://example.com/a?b=1']);
    expect(segs.map((s) => s.text).join('')).toBe('see https://example.com/a?b=1. and javascript://alert(1) or file:///etc/passwd');
    expect(isSafeHref('http://x')).toBe(true);
    expect(isSafeHref('javascript:alert(1)')).toBe(false);
  });

  it('markup in output stays text', () => {
    expect(ansiLine('<img src=x onerror=alert(1)>')).toEqual([{ text: '<img src=x onerror=alert(1)>' }]);
  });

  it('splits a block into lines, without a trailing empty one', () => {
    expect(ansiLines('a\r\nb\n')).toEqual([[{ text: 'a' }], [{ text: 'b' }]]);
    expect(ansiLines('')).toEqual([]);
  });
});
