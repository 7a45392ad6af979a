import { describe, expect, it } from 'vitest';
import { EditedSince, sameEditedContent } from './edited-since.js';
import type { KubeObject } from './objects.js';

const canary = (rv: string, over: Partial<KubeObject['metadata']> = {}, status?: Record<string, unknown>): KubeObject => ({
  metadata: { namespace: 'default', name: 'web', uid: 'u1', resourceVersion: rv, generation: 1, labels: { team: 'a' }, ...over },
  spec: {},
  status,
});

describe('EditedSince', () => {
  it('keeps the version of the last spec, label or annotation change across status writes', () => {
    const s = new EditedSince();
    s.seen('add', canary('10'));
    s.seen('update', canary('11', {}, { message: 'passed' }));
    expect(s.since('default', 'web', '11')).toBe('10');
    s.seen('update', canary('12', { generation: 2 }));
    s.seen('update', canary('13', { generation: 2 }, { observedGeneration: 2 }));
    expect(s.since('default', 'web', '13')).toBe('12');
    s.seen('update', canary('14', { generation: 2, labels: { team: 'b' } }));
    expect(s.since('default', 'web', '14')).toBe('14');
    s.seen('update', canary('15', { generation: 2, labels: { team: 'b' }, annotations: { note: 'x' } }));
    expect(s.since('default', 'web', '15')).toBe('15');
  });

  it('knows nothing of a version it did not see last, nor of a deleted or recreated object', () => {
    const s = new EditedSince();
    s.seen('add', canary('10'));
    s.seen('update', canary('11'));
    expect(s.since('default', 'web', '10')).toBeUndefined();
    s.seen('delete', canary('11'));
    expect(s.since('default', 'web', '11')).toBeUndefined();
    s.seen('add', canary('20'));
    s.seen('add', canary('21', { uid: 'u2' }));
    expect(s.since('default', 'web', '21')).toBe('21');
  });

  it('without a generation, any change counts', () => {
    expect(sameEditedContent(canary('1', { generation: undefined }), canary('2', { generation: undefined }))).toBe(false);
    expect(sameEditedContent(canary('1'), canary('2', {}, { message: 'x' }))).toBe(true);
  });
});
