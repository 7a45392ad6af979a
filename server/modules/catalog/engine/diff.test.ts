import { describe, expect, it } from 'vitest';
import { changedPaths, diffConfigs, normalise } from './diff.js';

describe('catalog diff', () => {
  it('normalises key order at every depth, so reordered configs are the same', () => {
    expect(diffConfigs(normalise({ a: 1, b: { d: [1, { y: 2, x: 1 }], c: 1 } }), normalise({ b: { c: 1, d: [1, { x: 1, y: 2 }] }, a: 1 }))).toBeNull();
  });

  it('gives a unified diff, the merge patch back to the previous config and the changed paths', () => {
    const d = diffConfigs({ spec: { replicas: 1, image: 'a' }, old: true }, { spec: { replicas: 2, image: 'a' } })!;
    expect(d.patches).toEqual({ old: true, spec: { replicas: 1 } });
    expect(d.summary).toBe('old, spec.replicas');
    expect(d.diff).toContain('-    "replicas": 1');
    expect(d.diff).toContain('+    "replicas": 2');
    expect(changedPaths({ a: { b: null, c: [1] }, d: 1 })).toEqual(['a.b', 'a.c', 'd']);
  });
});
