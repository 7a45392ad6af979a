import type { FastifyInstance } from 'fastify';

/** A scheduler as the engines make them: started once, stopped once, reloaded when what it schedules changes. */
export interface LeaderScheduler {
  start(): Promise<void>;
  stop(): Promise<void>;
  reload(): Promise<void>;
}

export interface LeaderScheduledOptions {
  /** Names the scheduler in the log line of a failed start or stop. */
  name: string;
  /** A new scheduler: one does not restart after stop(), so each gain of the lead makes one. */
  create: () => LeaderScheduler;
  /** The table whose changes (a save here, a CR sync, another replica's write) reload the schedule at once. */
  relation: string;
}

/**
 * Runs a scheduler on the leader only (app.leadership from the kube plugin; without it this replica leads), from
 * onReady to onClose: started on each gain of the lead, stopped on its loss, reloaded on a change of `relation` or
 * a resync of the events bus. Starts and stops are queued, so a quick loss and gain never runs two at once.
 */
export function leaderScheduled(app: FastifyInstance, opts: LeaderScheduledOptions): void {
  const leadership = app.hasDecorator('leadership') ? app.leadership : null;
  let scheduler: LeaderScheduler | undefined;
  let closing = false;
  let change = Promise.resolve();
  const follow = (leads: boolean) => {
    change = change.then(async () => {
      if (leads && !scheduler && !closing) {
        scheduler = opts.create();
        await scheduler.start();
      } else if (!leads && scheduler) {
        const s = scheduler;
        scheduler = undefined;
        await s.stop();
      }
    }).catch((err) => app.log.error({ err }, `${opts.name}: start/stop failed`));
    return change;
  };
  const off = app.hasDecorator('events')
    ? app.events.bus.subscribe((event) => {
      if (event.type === 'resync' || (event.type === 'change' && event.relation === opts.relation)) void scheduler?.reload();
    })
    : () => true;
  let offLead = () => {};
  app.addHook('onReady', async () => {
    offLead = leadership ? leadership.onChange(follow) : offLead;
    await follow(leadership ? leadership.isLeader() : true);
  });
  app.addHook('onClose', async () => {
    closing = true;
    off();
    offLead();
    await follow(false);
  });
}
