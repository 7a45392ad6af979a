import { describe, expect, it } from 'vitest';
import { encodeChange, idsFromBody, MAX_EVENT_IDS } from './events.js';

describe('encodeChange', () => {
  it('keeps a few ids', () => {
    const at = new Date('2024-01-01T00:00:00Z');
    expect(JSON.parse(encodeChange({ relation: 'teams', ids: ['a', 2, null] }, at))).toEqual({
      type: 'change', relation: 'teams', ids: ['a', '2'], at: '2024-01-01T00:00:00.000Z',
    });
  });

  it('drops ids when there are many, or when they would not fit a NOTIFY payload', () => {
    const many = Array.from({ length: MAX_EVENT_IDS + 1 }, (_, i) => `id-${i}`);
    expect(JSON.parse(encodeChange({ relation: 'teams', ids: many })).ids).toBeUndefined();
    const long = Array.from({ length: 10 }, () => 'x'.repeat(1_000));
    const text = encodeChange({ relation: 'teams', ids: long });
    expect(JSON.parse(text).ids).toBeUndefined();
    expect(Buffer.byteLength(text)).toBeLessThan(8_000);
  });
});

describe('idsFromBody', () => {
  it('reads a single-column key from the representation', () => {
    expect(idsFromBody('[{"id":"a"},{"id":"b"}]', ['id'])).toEqual(['a', 'b']);
  });

  it('gives up when the key is composite, absent from the body, or there is no body', () => {
    expect(idsFromBody('[{"a":1,"b":2}]', ['a', 'b'])).toBeUndefined();
    expect(idsFromBody('[{"name":"x"}]', ['id'])).toBeUndefined();
    expect(idsFromBody(undefined, ['id'])).toBeUndefined();
    expect(idsFromBody('not json', ['id'])).toBeUndefined();
  });
});
