import type { EventSource } from '../types.js';
import { checkSource } from './check.js';
import { componentSource } from './component.js';
import { configSource } from './config.js';
import { incidentSource } from './incident.js';
import { playbookSource } from './playbook.js';

/**
 * The event source registry (issue 15 "Events"): each kind of resource that writes events, one line per member. A
 * module adds its kind (playbook.*) by adding a line here and a trigger or enqueueEvent call that writes the rows.
 */
export const SOURCES: readonly EventSource[] = [
  checkSource, // check.failed, check.passed (checks.status flips; 0073)
  incidentSource, // incident.created, .status.<status>, .responder.added|removed, .comment.added, .dod.* (0081)
  componentSource, // component.<health> (components.health changes; 0081)
  configSource, // config.created|updated|deleted|<health> (config_items inserts, config and health changes, soft deletes; 0081)
  playbookSource, // playbook.run (a run finished), playbook.approval.inserted, playbook.spec.approval.updated (0084)
];

const byEvent = new Map<string, EventSource>(SOURCES.flatMap((s) => s.events.map((e) => [e, s] as const)));

/** The source of an event name (`incident.status.open` → the incident source); undefined when none writes it. */
export function sourceOfEvent(name: string): EventSource | undefined {
  return byEvent.get(name);
}

/** Every event name a source writes. */
export function knownEvents(): string[] {
  return [...byEvent.keys()];
}
