import type { EventSource } from '../types.js';
import { checkSource } from './check.js';

/**
 * The event source registry (issue 15 "Events"): each kind of resource that writes events, one line per member. A
 * module adds its kind (playbook.*) by adding a line here and a trigger or enqueueEvent call that writes the rows.
 */
export const SOURCES: readonly EventSource[] = [
  checkSource, // check.failed, check.passed (checks.status flips; 0073)
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
