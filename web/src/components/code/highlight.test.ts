import { describe, expect, it } from 'vitest';
import { formatLineSelection, highlightLines, parseLineSelection } from './highlight';

describe('line selection', () => {
  it('round-trips ranges', () => {
    expect([...parseLineSelection('3-5,8')]).toEqual([3, 4, 5, 8]);
    expect(formatLineSelection([8, 3, 4, 5])).toBe('3-5,8');
    expect(formatLineSelection([])).toBe('');
    expect([...parseLineSelection('x,0,2')]).toEqual([2]);
  });
});

describe('highlighting', () => {
  it('tells JSON keys from string values', () => {
    const [line] = highlightLines('  "name": "web", "n": 3, "ok": true', 'json');
    expect(line.filter((t) => t.kind !== 'plain' && t.kind !== 'punctuation').map((t) => [t.kind, t.text])).toEqual([
      ['key', '"name"'],
      ['string', '"web"'],
      ['key', '"n"'],
      ['number', '3'],
      ['key', '"ok"'],
      ['keyword', 'true'],
    ]);
  });

  it('finds YAML keys, scalars and comments', () => {
    const lines = highlightLines('# top\nspec:\n  replicas: 3 # three\n  - name: "web"\n  paused: false', 'yaml');
    expect(lines[0]).toEqual([{ text: '# top', kind: 'comment' }]);
    expect(lines[1].find((t) => t.kind === 'key')?.text).toBe('spec');
    expect(lines[2].map((t) => t.kind)).toContain('comment');
    expect(lines[2].find((t) => t.kind === 'number')?.text).toBe('3');
    expect(lines[3].find((t) => t.kind === 'string')?.text).toBe('"web"');
    expect(lines[4].find((t) => t.kind === 'keyword')?.text).toBe('false');
  });
});
