/**
 * A second replica for the faults test, in its own process: runs the playbook engine against the database given as
 * the first argument, with testStep actions that never finish (so it is killed mid-action). Prints "ready" once
 * listening.
 */
import pg from 'pg';
import { engine } from './playbooks-engine-support.js';

process.env.TEST_STEP_HANG = '1';
const url = process.argv[2];
const pool = new pg.Pool({ connectionString: url, max: 4 });
pool.on('error', () => undefined);
const e = engine(pool, url, { replica: process.argv[3] ?? 'doomed-replica', leaseMs: 2_000 });
await e.start();
process.stdout.write('ready\n');
