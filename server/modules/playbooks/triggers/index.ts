import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { leaderScheduled } from '../../../lib/leader-scheduled.js';
import { canaryEventHandler, CHECK_EVENTS } from './canary-trigger.js';
import { RESOURCE_EVENTS, resourceEventHandler, type TriggerKind } from './resource-trigger.js';
import { playbookScheduler } from './schedule.js';

/**
 * Playbook triggers (issue 14 "Triggers"): check.failed/check.passed → on.canary,
 * config.* → on.config and component.* → on.component, handled by the event queue's
 * consumer on every replica (app.eventQueue, issue 15), and on.schedule on the leader.
 */
export const playbookTriggers: FastifyPluginAsync = fp(async (app) => {
  const handler = canaryEventHandler(app.db, app.log);
  for (const name of Object.keys(CHECK_EVENTS)) app.eventQueue.on(name, handler);
  for (const kind of Object.keys(RESOURCE_EVENTS) as TriggerKind[]) {
    const onResource = resourceEventHandler(app.db, kind, app.log);
    for (const name of RESOURCE_EVENTS[kind]) app.eventQueue.on(name, onResource);
  }
  leaderScheduled(app, {
    name: 'playbook schedules',
    relation: 'playbooks',
    create: () => playbookScheduler({ db: app.db, log: app.log }),
  });
}, { name: 'playbook-triggers', dependencies: ['events'] });
