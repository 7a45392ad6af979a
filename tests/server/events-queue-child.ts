/**
 * A second replica for the event queue's kill -9 test, in its own process: an event queue consumer on the database
 * given as the first argument, handling `test.kill` rows by writing a `test_handled` row in the consumer's
 * transaction. After the `n`th (second argument) it prints "hung" and never finishes, to be SIGKILLed mid-batch.
 */
import pg from 'pg';
import { EventConsumer } from '../../server/modules/events/consumer.js';
import type { EventHandler } from '../../server/modules/events/types.js';

const url = process.argv[2];
const hangAt = Number(process.argv[3] ?? 1);
const pool = new pg.Pool({ connectionString: url, max: 2 });
pool.on('error', () => undefined);
let handled = 0;
const handler: EventHandler = async (event, client) => {
  await client.query('INSERT INTO test_handled (event_id, by) VALUES ($1, $2)', [event.event_id, 'child']);
  if (++handled === hangAt) {
    process.stdout.write('hung\n');
    await new Promise(() => undefined);
  }
};
const consumer = new EventConsumer({
  db: pool, handlers: new Map([['test.kill', [handler]]]), log: { warn: () => undefined }, batchSize: 20, sweepMs: 60_000, timeoutMs: 600_000,
});
void consumer.drain();
