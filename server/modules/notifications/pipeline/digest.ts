import type { Q } from '../../events/types.js';
import { digestState, type DigestState, type RuleRow } from './queries.js';
import { nsToMs } from './repeat.js';

/** The reference's rate limit: past this many sends per rule (and recipient) in RATE_WINDOW_MS, sends join a digest. */
export const RATE_LIMIT = 50;
export const RATE_WINDOW_MS = 4 * 3_600_000;

/**
 * Digests (issue 15 "Beyond the reference"). A rule that groups (group_by or group_by_interval set) sends the first
 * event of a burst at once; what follows for the same recipient within group_by_interval (default 1 min) is held and
 * leaves as one message when the window ends. Past the rate limit every rule's sends join such a digest (one a
 * window) instead of being dropped. Returns when to release the held send, or null to send now.
 */
export async function holdFor(db: Q, rule: RuleRow, key: Record<string, unknown>, defaultIntervalMs: number):
  Promise<{ notBefore: Date; reason: 'burst' | 'rate-limit' } | null> {
  const { windowMs } = digestWindow(rule, defaultIntervalMs);
  // one query: the open digest, the sends inside the burst window and inside the rate window
  return holdOf(rule, await digestState(db, rule.id, key, RATE_WINDOW_MS, windowMs), defaultIntervalMs);
}

/** Whether the rule groups, and its burst window (ms). */
export function digestWindow(rule: RuleRow, defaultIntervalMs: number): { grouping: boolean; windowMs: number } {
  return { grouping: !!rule.group_by?.length || !!nsToMs(rule.group_by_interval), windowMs: nsToMs(rule.group_by_interval) ?? defaultIntervalMs };
}

/** holdFor's decision over digest facts already read. */
export function holdOf(rule: RuleRow, state: DigestState, defaultIntervalMs: number): { notBefore: Date; reason: 'burst' | 'rate-limit' } | null {
  const { grouping, windowMs } = digestWindow(rule, defaultIntervalMs);
  if (state.open) return { notBefore: state.open.not_before, reason: grouping ? 'burst' : 'rate-limit' };
  if (grouping && state.groupCount > 0 && state.groupLast) {
    return { notBefore: new Date(new Date(state.groupLast).getTime() + windowMs), reason: 'burst' };
  }
  if (state.rateCount >= RATE_LIMIT) return { notBefore: new Date(Date.now() + windowMs), reason: 'rate-limit' };
  return null;
}
