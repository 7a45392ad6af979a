import type pg from 'pg';
import type { LeaderScheduler } from '../../../lib/leader-scheduled.js';
import { nextRun, parseSchedule, type Schedule } from '../../health/schedule.js';
import { createRun } from '../runs.js';
import { SYSTEM_PERSON_ID } from './canary-trigger.js';
import { triggerEnv, triggerParams } from './params.js';
import { playbooksWithTrigger, type TriggerPlaybook } from './queries.js';

export interface PlaybookSchedulerOptions {
  db: pg.Pool;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  now?: () => number;
}

interface Entry {
  key: string;
  playbook: TriggerPlaybook;
  schedule: Schedule;
  parameters: Record<string, unknown>;
  timer?: NodeJS.Timeout;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** setTimeout's ceiling (~24.8 days): a later time is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `on.schedule[]` of live playbooks (issue 14 "Triggers"), on the leader only (made by leaderScheduled, reloaded on
 * every change of `playbooks`): each entry's next time by cron or `@every` (UTC, or CRON_TZ=), then a run created by
 * the System person with the parameters' defaults under the entry's `parameters`. A time missed while no replica led
 * is not caught up.
 */
export function playbookScheduler(opts: PlaybookSchedulerOptions): LeaderScheduler {
  const now = opts.now ?? Date.now;
  let entries = new Map<string, Entry>();
  let stopped = false;

  const arm = (e: Entry, after: number) => {
    const at = nextRun(e.schedule, after, e.key);
    if (at === null || stopped) return;
    const wait = Math.max(0, at - now());
    e.timer = setTimeout(() => (wait > MAX_TIMER_MS ? arm(e, after) : void fire(e, at)), Math.min(wait, MAX_TIMER_MS));
    e.timer.unref();
  };

  const fire = async (e: Entry, at: number) => {
    if (stopped || entries.get(e.key) !== e) return;
    try {
      const env = triggerEnv(e.playbook, {});
      const run = await createRun(opts.db, {
        playbook: e.playbook, params: await triggerParams(opts.db, e.playbook, env, e.parameters), createdBy: SYSTEM_PERSON_ID,
      });
      opts.log.info({ playbook: e.playbook.id, run: run.run_id, schedule: e.schedule.text }, 'scheduled playbook run started');
    } catch (err) {
      opts.log.warn({ err, playbook: e.playbook.id, schedule: e.schedule.text }, 'scheduled playbook run could not start');
    }
    if (entries.get(e.key) === e) arm(e, Math.max(at, now()));
  };

  const load = async () => {
    const next = new Map<string, Entry>();
    for (const playbook of await playbooksWithTrigger(opts.db, 'schedule')) {
      const on = isObject(playbook.spec.on) ? playbook.spec.on : {};
      const list = Array.isArray(on.schedule) ? on.schedule.filter(isObject) : [];
      list.forEach((s, i) => {
        try {
          const schedule = parseSchedule(typeof s.schedule === 'string' ? s.schedule : '');
          const parameters = isObject(s.parameters) ? s.parameters : {};
          // the key holds what the timer depends on, so an unchanged entry keeps its timer across reloads
          const key = `${playbook.id}/${i}/${schedule.text}/${JSON.stringify(parameters)}/${playbook.updated_at}`;
          next.set(key, { key, playbook, schedule, parameters });
        } catch (err) {
          opts.log.warn({ err, playbook: playbook.id }, `playbook on.schedule[${i}] is not a valid schedule`);
        }
      });
    }
    if (stopped) return;
    for (const [key, e] of entries) if (!next.has(key)) clearTimeout(e.timer);
    for (const [key, e] of next) {
      const kept = entries.get(key);
      if (kept) next.set(key, kept);
      else arm(e, now());
    }
    entries = next;
  };

  let loading = Promise.resolve();
  const reload = () => (loading = loading.then(load).catch((err) => opts.log.warn({ err }, 'playbook schedules: load failed')));
  return {
    start: reload,
    reload,
    async stop() {
      stopped = true;
      await loading;
      for (const e of entries.values()) clearTimeout(e.timer);
      entries.clear();
    },
  };
}
