import type pg from 'pg';
import type { TestSendRequest, TestSendResponse, TestSendResult } from '../../contracts/notifications.js';
import { evalCel } from '../../lib/cel.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { parseId } from '../../lib/validation.js';
import { sourceOfEvent } from '../events/sources/index.js';
import { normalizeRule, problemsError } from './db-writers.js';
import { renderAndDeliver } from './pipeline/delivery.js';
import type { RuleRow } from './pipeline/queries.js';
import { expandRecipients, resolveRecipient } from './pipeline/recipients.js';
import { keepMaskedServices, liveRow } from './queries.js';
import { renderNotification } from './render/index.js';
import { validateRule } from './validate.js';

type Row = Record<string, unknown>;

/** The fields a test send takes from the form; the rest (repeat interval, wait_for, quiet hours) does not apply. */
const TEST_FIELDS = ['name', 'events', 'filter', 'title', 'template', 'properties', 'person_id', 'team_id', 'custom_services'] as const;

function asRule(row: Row): RuleRow {
  return {
    id: typeof row.id === 'string' ? row.id : '00000000-0000-0000-0000-000000000000',
    name: String(row.name ?? 'test'),
    events: (row.events as string[]) ?? [],
    filter: (row.filter as string) || null,
    title: (row.title as string) || null,
    template: (row.template as string) || null,
    properties: (row.properties as Record<string, string>) ?? null,
    repeat_interval: null, error: null, error_at: null,
    person_id: (row.person_id as string) || null,
    team_id: (row.team_id as string) || null,
    custom_services: (row.custom_services as unknown[]) ?? null,
    wait_for: null, group_by: null, group_by_interval: null, quiet_hours: null, deleted_at: null,
  };
}

/**
 * A test send (issue 15 "Beyond the reference"): the rule as the form holds it, rendered for the chosen resource and
 * sent now to each of its recipients, one attempt each; nothing is queued and nothing enters the send history, and
 * silences, repeat intervals, wait_for, quiet hours and digests do not apply (it is a test of the message and the
 * channels). The filter is evaluated and reported, not enforced.
 */
export async function testSend(db: pg.Pool, req: TestSendRequest, publicUrl: string): Promise<TestSendResponse> {
  let stored: Row | null = null;
  if (req.id) {
    stored = await liveRow(db, 'notifications', parseId(req.id, 'id'));
    if (!stored) throw new NotFoundError('notification', req.id);
  }
  const given = normalizeRule(Object.fromEntries(Object.entries(req.rule).filter(([k]) => (TEST_FIELDS as readonly string[]).includes(k))));
  if (stored && 'custom_services' in given) given.custom_services = await keepMaskedServices(db, given.custom_services, stored.custom_services);
  const merged: Row = { ...(stored ?? {}), ...given };
  const problems = await validateRule(db, { name: merged.name ?? 'test', ...merged });
  if (problems.length) throw problemsError('notification', problems);
  const rule = asRule(merged);
  if (!rule.events.includes(req.event)) throw new BadRequestError(`event: "${req.event.slice(0, 80)}" is not one of the rule's events`, { event: 'not one of the rule\'s events' });
  const source = sourceOfEvent(req.event);
  if (!source || !['check', 'component', 'config'].includes(source.kind)) {
    throw new BadRequestError(`event: a test send renders check, component and catalog events; "${req.event}" is not one`, { event: 'not testable' });
  }
  const resourceId = parseId(req.resource_id, 'resource_id');
  const resource = await source.load(db, { name: req.event, event_id: resourceId, properties: {} });
  if (!resource) throw new NotFoundError(source.kind, resourceId);

  let filter: boolean | null = null;
  let filterError: string | undefined;
  if (rule.filter) {
    try {
      filter = evalCel(rule.filter, resource.env) === true;
    } catch (err) {
      filter = false;
      filterError = err instanceof Error ? err.message : String(err);
    }
  }
  const title = renderNotification({
    eventName: req.event, resource, rule: { title: rule.title, template: rule.template, properties: rule.properties },
    channel: 'email', publicUrl,
  }).title;
  const results: TestSendResult[] = [];
  for (const key of await expandRecipients(db, rule, resource.env)) {
    const resolved = await resolveRecipient(db, rule, key);
    if (!resolved.ok) {
      results.push({ recipient: { ...resolved.recipient }, status: 'error', error: resolved.error, duration_millis: null });
      continue;
    }
    const out = await renderAndDeliver(rule, resolved.target, resource, [resource], req.event, { publicUrl, deliver: { attempts: 1 } });
    results.push({ recipient: { ...resolved.recipient }, status: out.status, error: out.error, duration_millis: out.duration_millis });
  }
  return {
    event: req.event,
    resource: { kind: resource.kind, id: resource.id, name: resource.name, health: resource.health },
    filter, ...(filterError ? { filter_error: filterError } : {}), title, results,
  };
}
