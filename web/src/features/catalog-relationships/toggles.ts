/**
 * The Relationships tab's toggles (spec 001 §2), as the URL keeps them: `outgoing` (default on), `incoming` (default
 * off), `relation=soft` (soft links too; default hard only).
 */
export type RelationToggles = { outgoing: boolean; incoming: boolean; soft: boolean };
export const TOGGLE_DEFAULTS: RelationToggles = { outgoing: true, incoming: false, soft: false };

/** Outgoing can be switched only while Incoming is on: with Incoming off, outgoing is what the tab shows. */
export const outgoingEnabled = (t: RelationToggles) => t.incoming;

/** A toggle flipped, with the spec's rules: Incoming off forces Outgoing on; Outgoing follows only when enabled. */
export function flip(t: RelationToggles, which: keyof RelationToggles, on: boolean): RelationToggles {
  if (which === 'incoming') return { ...t, incoming: on, outgoing: on ? t.outgoing : true };
  if (which === 'outgoing') return outgoingEnabled(t) ? { ...t, outgoing: on } : t;
  return { ...t, soft: on };
}

/** Both on mean all; Incoming alone incoming; otherwise outgoing (a link with Outgoing off and Incoming off included). */
export function typeFilter(t: RelationToggles): 'all' | 'incoming' | 'outgoing' {
  if (t.incoming && t.outgoing) return 'all';
  if (t.incoming) return 'incoming';
  return 'outgoing';
}

/** The `rpc/related_configs_recursive` arguments (the reference UI's request), deleted items as asked. */
export function relatedQuery(configId: string, t: RelationToggles, includeDeleted: boolean): Record<string, string | number | boolean> {
  const dir = typeFilter(t);
  const relation = t.soft ? 'both' : 'hard';
  const q: Record<string, string | number | boolean> = {
    config_id: configId,
    type_filter: dir,
    include_deleted_configs: includeDeleted,
    max_depth: 10,
  };
  if (dir !== 'outgoing') q.incoming_relation = relation;
  if (dir !== 'incoming') q.outgoing_relation = relation;
  return q;
}
