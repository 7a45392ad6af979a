import { describe, expect, it } from 'vitest';
import { until } from '../../../tests/support/poll.js';
import { AgentActivity } from './events.js';

/** What AgentActivity NOTIFYs, recorded (the database's side is covered by tests/server/agents-api.test.ts). */
function recorder() {
  const sent: Array<{ relation: string; ids?: string[] }> = [];
  const db = {
    query: async (_sql: string, params: unknown[]) => {
      sent.push(JSON.parse(String(params[1])));
      return { rows: [] };
    },
  } as unknown as ConstructorParameters<typeof AgentActivity>[0];
  return { sent, db };
}

describe('AgentActivity', () => {
  it('publishes the first activity at once and folds a burst into one trailing event per agent', async () => {
    const { sent, db } = recorder();
    const a = new AgentActivity(db, 300);
    for (let i = 0; i < 20; i++) a.note('agent-1');
    a.note('agent-2');
    await until(async () => sent.length === 2, 'the two first events');
    expect(sent.map((e) => [e.relation, e.ids])).toEqual([['agents', ['agent-1']], ['agents', ['agent-2']]]);
    await until(async () => sent.length === 3, 'the trailing event of the burst', 5_000);
    expect(sent[2].ids).toEqual(['agent-1']);
    a.note('agent-1'); // within the interval of the trailing one: deferred again, never more than one per interval
    expect(sent.length).toBe(3);
    a.close();
  });

  it('sends nothing after close', async () => {
    const { sent, db } = recorder();
    const a = new AgentActivity(db, 50);
    a.note('x');
    a.note('x');
    a.close();
    a.note('y');
    await new Promise((r) => setImmediate(r));
    expect(sent.map((e) => e.ids)).toEqual([['x']]);
  });
});
