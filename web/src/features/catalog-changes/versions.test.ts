import { describe, expect, it } from 'vitest';
import { applyMergePatch, compareForChange, CURRENT, findVersion, parseCompare, rebuildVersions, versionText } from './versions';

describe('applyMergePatch (RFC 7386)', () => {
  it('merges objects key by key, removes keys patched to null, replaces arrays and scalars', () => {
    const target = { a: 1, b: { c: 2, d: 3 }, list: [1, 2], gone: true };
    expect(applyMergePatch(target, { a: 5, b: { d: null, e: 4 }, list: [9], gone: null })).toEqual({ a: 5, b: { c: 2, e: 4 }, list: [9] });
    expect(target).toEqual({ a: 1, b: { c: 2, d: 3 }, list: [1, 2], gone: true });
    expect(applyMergePatch({ a: 1 }, 'text')).toBe('text');
    expect(applyMergePatch('text', { a: 1 })).toEqual({ a: 1 });
  });
});

describe('rebuildVersions', () => {
  // three scrapes: replicas 1 -> 2 -> 3, and an image change at the second; each patch goes new -> previous
  const current = { spec: { replicas: 3, image: 'nginx:1.27' } };
  const changes = [
    { id: 'c3', created_at: '2026-11-26T12:00:00Z', patches: { spec: { replicas: 2 } } },
    { id: 'c2', created_at: '2026-11-26T11:00:00Z', patches: JSON.stringify({ spec: { replicas: 1, image: 'nginx:1.25' } }) },
  ];

  it('walks the patches from the current config back to the version before the oldest change', () => {
    const versions = rebuildVersions(current, changes);
    expect(versions.map((v) => v.id)).toEqual(['c3', 'c2', 'before:c2']);
    expect(versions[0].config).toEqual(current);
    expect(versions[1].config).toEqual({ spec: { replicas: 2, image: 'nginx:1.27' } });
    expect(versions[2].config).toEqual({ spec: { replicas: 1, image: 'nginx:1.25' } });
    expect(findVersion(versions, CURRENT)).toBe(versions[0]);
    expect(findVersion(versions, 'nope')).toBeNull();
    // what change c3 did: the version it replaced (the one c2 made) against the one it made
    expect(compareForChange('c3')).toBe('before:c3..c3');
    expect(findVersion(versions, 'before:c3')).toBe(versions[1]);
    expect(findVersion(versions, 'before:c2')).toBe(versions[2]);
    expect(findVersion(versions, 'before:nope')).toBeNull();
  });

  it('has only the current version when there are no changes', () => {
    expect(rebuildVersions(current, [])).toEqual([{ id: CURRENT, at: null, label: 'Current', config: current }]);
  });
});

describe('parseCompare and versionText', () => {
  it('reads a..b and refuses anything else', () => {
    expect(parseCompare('current..c2')).toEqual(['current', 'c2']);
    expect(parseCompare('before:c2..current')).toEqual(['before:c2', 'current']);
    expect(parseCompare('c2')).toBeNull();
    expect(parseCompare('..c2')).toBeNull();
    expect(parseCompare('c2..')).toBeNull();
    expect(parseCompare(null)).toBeNull();
  });

  it('prints keys in a stable order', () => {
    expect(versionText({ b: 1, a: { d: 1, c: 2 } })).toBe(versionText({ a: { c: 2, d: 1 }, b: 1 }));
  });
});
