import { describe, expect, it } from 'vitest';
import { mdEscape } from './markdown.js';
import { toPlainText } from './text.js';

describe('plain text', () => {
  it('writes links as text: url, drops bold and heading marks, reads escapes back', () => {
    expect(toPlainText(`### Labels\n**Error**: ${mdEscape('a*b <c> [d]')}\n[View](https://c.example/h) | [Silence](https://c.example/s)`))
      .toBe('Labels\nError: a*b <c> [d]\nView: https://c.example/h | Silence: https://c.example/s');
  });
});
