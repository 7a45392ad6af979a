import { describe, expect, it } from 'vitest';
import { flip, outgoingEnabled, relatedQuery, TOGGLE_DEFAULTS, typeFilter } from './toggles';

describe('relationship toggles', () => {
  it('start with outgoing on, incoming off, hard links only; Outgoing disabled until Incoming is on', () => {
    expect(TOGGLE_DEFAULTS).toEqual({ outgoing: true, incoming: false, soft: false });
    expect(outgoingEnabled(TOGGLE_DEFAULTS)).toBe(false);
    expect(typeFilter(TOGGLE_DEFAULTS)).toBe('outgoing');
    // a disabled Outgoing does not flip
    expect(flip(TOGGLE_DEFAULTS, 'outgoing', false)).toEqual(TOGGLE_DEFAULTS);
  });

  it('both on mean all; Incoming alone incoming; Incoming off forces Outgoing back on', () => {
    const both = flip(TOGGLE_DEFAULTS, 'incoming', true);
    expect(both).toEqual({ outgoing: true, incoming: true, soft: false });
    expect(typeFilter(both)).toBe('all');
    const incomingOnly = flip(both, 'outgoing', false);
    expect(typeFilter(incomingOnly)).toBe('incoming');
    expect(flip(incomingOnly, 'incoming', false)).toEqual({ outgoing: true, incoming: false, soft: false });
    // a link with both off (hand-edited) still shows outgoing
    expect(typeFilter({ outgoing: false, incoming: false, soft: false })).toBe('outgoing');
  });

  it('asks the RPC for the direction and relation the toggles say', () => {
    expect(relatedQuery('c1', TOGGLE_DEFAULTS, false)).toEqual({
      config_id: 'c1', type_filter: 'outgoing', include_deleted_configs: false, max_depth: 10, outgoing_relation: 'hard',
    });
    expect(relatedQuery('c1', { outgoing: true, incoming: true, soft: true }, true)).toEqual({
      config_id: 'c1', type_filter: 'all', include_deleted_configs: true, max_depth: 10, incoming_relation: 'both', outgoing_relation: 'both',
    });
    expect(relatedQuery('c1', { outgoing: false, incoming: true, soft: false }, false)).toMatchObject({ type_filter: 'incoming', incoming_relation: 'hard' });
  });
});
