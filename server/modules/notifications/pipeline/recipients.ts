import { evalCel } from '../../../lib/cel.js';
import type { Q } from '../../events/types.js';
import { maskUrl, resolveTarget, systemEmailTarget } from '../senders/index.js';
import type { DeliveryTarget, Recipient } from '../types.js';
import { personEmail, teamEntries, type RuleRow } from './queries.js';

/**
 * A rule's recipients (issue 15 "Rules"): its person (email through the system SMTP), each entry of its team's
 * spec.notifications, or each of its custom_services. An entry's own `filter` (CEL over the resource's env) narrows
 * it. The key is what a queued send and a history row carry: never a URL or a secret (those are resolved when sent).
 */
export interface RecipientKey {
  kind: 'person' | 'team' | 'custom';
  person_id?: string;
  team_id?: string;
  index?: number;
}

interface Entry {
  connection?: string;
  url?: string;
  properties?: Record<string, string>;
  filter?: string;
  name?: string;
}

function entryPasses(entry: Entry, env: Record<string, unknown>): boolean {
  if (!entry.filter) return true;
  try {
    return evalCel(entry.filter, env) === true;
  } catch {
    return false;
  }
}

function entries(list: unknown): Entry[] {
  return Array.isArray(list) ? list.filter((e): e is Entry => !!e && typeof e === 'object') : [];
}

/** The recipients a matched rule sends to for a resource's env. */
export async function expandRecipients(db: Q, rule: RuleRow, env: Record<string, unknown>): Promise<RecipientKey[]> {
  const out: RecipientKey[] = [];
  if (rule.person_id) out.push({ kind: 'person', person_id: rule.person_id });
  if (rule.team_id) {
    const list = entries(await teamEntries(db, rule.team_id));
    list.forEach((e, index) => entryPasses(e, env) && out.push({ kind: 'team', team_id: rule.team_id!, index }));
  }
  entries(rule.custom_services).forEach((e, index) => entryPasses(e, env) && out.push({ kind: 'custom', index }));
  return out;
}

/** Where a recipient's send goes now, and the history's (masked) recipient; a gone recipient is `gone`. */
export type ResolvedRecipient =
  | { ok: true; target: DeliveryTarget; recipient: Recipient }
  | { ok: false; gone: boolean; error: string; recipient: Recipient };

export async function resolveRecipient(db: Q, rule: RuleRow, key: RecipientKey): Promise<ResolvedRecipient> {
  if (key.kind === 'person') {
    const email = key.person_id ? await personEmail(db, key.person_id) : null;
    const recipient: Recipient = { kind: 'person', person_id: key.person_id, email: email ?? undefined };
    if (!email) return { ok: false, gone: true, error: 'the person is gone or has no email', recipient };
    const target = await systemEmailTarget(db, email);
    if (!target) return { ok: false, gone: false, error: 'no system email: add an email connection named "system" or set SMTP_*', recipient };
    return { ok: true, target, recipient };
  }
  const list = key.kind === 'team' ? entries(key.team_id ? await teamEntries(db, key.team_id) : null) : entries(rule.custom_services);
  const entry = list[key.index ?? -1];
  const base: Recipient = { kind: key.kind, team_id: key.team_id, index: key.index };
  if (!entry) return { ok: false, gone: true, error: `the ${key.kind === 'team' ? 'team notification' : 'custom service'} is gone`, recipient: base };
  const recipient: Recipient = { ...base, connection: entry.connection };
  try {
    const target = await resolveTarget(db, { connection: entry.connection, url: entry.url, properties: entry.properties });
    return { ok: true, target, recipient: { ...recipient, url: maskUrl(target.url) } };
  } catch (err) {
    return { ok: false, gone: false, error: err instanceof Error ? err.message : String(err), recipient };
  }
}

/** The jsonb containment key history rows are matched by (repeat interval, dedupe, digests). */
export function keyJson(key: RecipientKey): Record<string, unknown> {
  return Object.fromEntries(Object.entries(key).filter(([, v]) => v !== undefined));
}
