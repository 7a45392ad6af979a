import { NOTIFICATION_EVENTS } from '../../../contracts/notifications.js';
import { parseLongDuration } from '../../../lib/cel.js';
import type { Problem, Q } from '../types.js';
import { findPerson, findPlaybook, findTeam } from './queries.js';

/**
 * A Notification CR's spec as a notifications row, as the reference's controller persists it: `to` names one
 * recipient (person by email or name → person_id, team by name → team_id, playbook by name or namespace/name →
 * playbook_id, else one custom_services entry: email as `smtp://system/?To=<email>`, a connection, a url or a webhook
 * url, with the properties); `fallback` the same into the fallback_* columns; durations (Go units plus d and w) in
 * nanoseconds. Problems name the spec path (`spec.to.person: unknown person "nobody"`).
 */

type Spec = Record<string, unknown>;
type Row = Record<string, unknown>;

const isObj = (v: unknown): v is Spec => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
const KNOWN_EVENTS = new Set<string>(NOTIFICATION_EVENTS);
const NS_PER_MS = 1_000_000n;

/** A duration text as nanoseconds (bigint as text for pg), null when absent; a problem when it does not parse. */
function nanos(v: unknown, path: string, problems: Problem[]): string | null {
  if (v === undefined || v === null || v === '') return null;
  const ms = typeof v === 'string' ? parseLongDuration(v) : null;
  if (ms === null || ms < 0) {
    problems.push({ path, message: `invalid duration ${JSON.stringify(v)} (e.g. 5m, 1h, 1d)` });
    return null;
  }
  return (BigInt(Math.round(ms)) * NS_PER_MS).toString();
}

interface Recipient {
  person_id: string | null;
  team_id: string | null;
  playbook_id: string | null;
  custom_services: Array<Record<string, unknown>> | null;
}

/** One `to` (or `fallback`) block: which single recipient it names, resolved against the database. */
async function recipientOf(c: Q, to: Spec, path: string, namespace: string, problems: Problem[]): Promise<Recipient> {
  const out: Recipient = { person_id: null, team_id: null, playbook_id: null, custom_services: null };
  const props = isObj(to.properties) ? to.properties : undefined;
  const person = str(to.person);
  const team = str(to.team);
  const playbook = str(to.playbook);
  if (person) {
    out.person_id = await findPerson(c, person);
    if (!out.person_id) problems.push({ path: `${path}.person`, message: `unknown person ${JSON.stringify(person)}` });
  } else if (team) {
    out.team_id = await findTeam(c, team);
    if (!out.team_id) problems.push({ path: `${path}.team`, message: `unknown team ${JSON.stringify(team)}` });
  } else if (playbook) {
    const [ns, name] = playbook.includes('/') ? playbook.split('/', 2) : [namespace, playbook];
    out.playbook_id = await findPlaybook(c, ns, name);
    if (!out.playbook_id) problems.push({ path: `${path}.playbook`, message: `unknown playbook ${JSON.stringify(playbook)}` });
  } else {
    const email = str(to.email);
    const connection = str(to.connection);
    const url = str(to.url) ?? str(to.webhook);
    const entry: Record<string, unknown> = {};
    if (email) entry.url = `smtp://system/?To=${encodeURIComponent(email)}`;
    else if (connection) entry.connection = connection;
    else if (url) entry.url = url;
    else problems.push({ path, message: 'a recipient is required: person, team, email, connection, url or playbook' });
    if (props) entry.properties = props;
    if (Object.keys(entry).length) out.custom_services = [entry];
  }
  return out;
}

/** The notifications columns a Notification CR sets (besides id, name, namespace, labels, spec and source). */
export const NOTIFICATION_COLUMNS = [
  'events', 'title', 'template', 'filter', 'repeat_interval', 'properties', 'person_id', 'team_id', 'playbook_id',
  'custom_services', 'wait_for', 'wait_for_eval_period', 'group_by', 'group_by_interval', 'inhibitions',
  'fallback_person_id', 'fallback_team_id', 'fallback_playbook_id', 'fallback_custom_services', 'fallback_delay',
] as const;

/** The notification_silences columns a NotificationSilence CR sets. */
export const SILENCE_COLUMNS = [
  'description', 'filter', 'selectors', 'from', 'until', 'recursive', 'check_id', 'canary_id', 'component_id', 'config_id',
] as const;

export interface NotificationRowResult {
  /** The columns the CR sets (besides id, name, namespace, labels, spec, source). */
  row: Row;
  problems: Problem[];
}

/** Maps a Notification spec to its row's columns, resolving people, teams and playbooks through `c`. */
export async function notificationRowOf(c: Q, spec: Spec, namespace: string): Promise<NotificationRowResult> {
  const problems: Problem[] = [];
  const events = Array.isArray(spec.events) ? spec.events.filter((e): e is string => typeof e === 'string') : [];
  events.forEach((e, i) => {
    if (!KNOWN_EVENTS.has(e)) problems.push({ path: `spec.events[${i}]`, message: `unknown event ${JSON.stringify(e)}` });
  });
  const to = isObj(spec.to) ? spec.to : {};
  const main = await recipientOf(c, to, 'spec.to', namespace, problems);
  const fb = isObj(spec.fallback) ? spec.fallback : null;
  const fallback = fb ? await recipientOf(c, fb, 'spec.fallback', namespace, problems) : null;
  const repeat = str(spec.repeatInterval);
  if (repeat && parseLongDuration(repeat) === null) {
    problems.push({ path: 'spec.repeatInterval', message: `invalid duration ${JSON.stringify(repeat)} (e.g. 1h, 1d)` });
  }
  const row: Row = {
    events,
    title: str(spec.title),
    template: str(spec.template),
    filter: str(spec.filter),
    repeat_interval: repeat,
    properties: isObj(to.properties) ? to.properties : null,
    person_id: main.person_id,
    team_id: main.team_id,
    playbook_id: main.playbook_id,
    custom_services: main.custom_services ? JSON.stringify(main.custom_services) : null,
    wait_for: nanos(spec.waitFor, 'spec.waitFor', problems),
    wait_for_eval_period: nanos(spec.waitForEvalPeriod, 'spec.waitForEvalPeriod', problems),
    group_by: Array.isArray(spec.groupBy) ? spec.groupBy.filter((g): g is string => typeof g === 'string') : null,
    group_by_interval: nanos(spec.groupByInterval, 'spec.groupByInterval', problems),
    inhibitions: Array.isArray(spec.inhibitions) ? JSON.stringify(spec.inhibitions) : null,
    fallback_person_id: fallback?.person_id ?? null,
    fallback_team_id: fallback?.team_id ?? null,
    fallback_playbook_id: fallback?.playbook_id ?? null,
    fallback_custom_services: fallback?.custom_services ? JSON.stringify(fallback.custom_services) : null,
    fallback_delay: fb ? nanos(fb.delay, 'spec.fallback.delay', problems) : null,
  };
  return { row, problems };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SILENCE_TARGETS = ['check_id', 'canary_id', 'component_id', 'config_id'] as const;

/** A NotificationSilence spec as its row's columns; the resource ids (the reference's inline fields) must be uuids. */
export function silenceRowOf(spec: Spec): NotificationRowResult {
  const problems: Problem[] = [];
  const time = (key: 'from' | 'until'): string | null => {
    const v = spec[key];
    if (v === undefined || v === null || v === '') return null;
    if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) {
      problems.push({ path: `spec.${key}`, message: `not an RFC 3339 time: ${JSON.stringify(v)}` });
      return null;
    }
    return new Date(v).toISOString();
  };
  const row: Row = {
    description: str(spec.description),
    filter: str(spec.filter),
    selectors: Array.isArray(spec.selectors) ? JSON.stringify(spec.selectors) : null,
    from: time('from'),
    until: time('until'),
    recursive: typeof spec.recursive === 'boolean' ? spec.recursive : null,
  };
  for (const key of SILENCE_TARGETS) {
    const v = str(spec[key]);
    if (v && !UUID.test(v)) problems.push({ path: `spec.${key}`, message: `not an id: ${JSON.stringify(v)}` });
    row[key] = v && UUID.test(v) ? v : null;
  }
  if (row.from && row.until && Date.parse(String(row.from)) >= Date.parse(String(row.until))) {
    problems.push({ path: 'spec.until', message: '`until` must be after `from`' });
  }
  return { row, problems };
}
