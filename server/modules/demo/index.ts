import type { DemoSet } from '../../lib/demo.js';
import { foundationDemo } from './foundation.js';
import { healthDemo } from './health.js';
import { incidentsDemo } from '../incidents/demo.js';
import { settingsDemo } from './settings.js';
import { catalogDemo } from './catalog.js';
import { topologyDemo } from './topology.js';
import { playbooksDemo } from './playbooks.js';
import { notificationsDemo } from './notifications.js';
import { agentsDemo } from './agents.js';
import { authEventsDemo } from './auth-events.js';

/**
 * Every demo set, in load order: a set may refer to rows of the sets before it. Each module appends its own set
 * here; `loadDemoSets` records what it loaded, so a set added later is loaded on the next start of an existing
 * installation.
 */
export const DEMO_SETS: readonly DemoSet[] = [foundationDemo, healthDemo, incidentsDemo, settingsDemo, catalogDemo, playbooksDemo, notificationsDemo, agentsDemo, authEventsDemo, topologyDemo];
