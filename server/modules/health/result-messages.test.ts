import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../contracts/duration.js';
import { demoCanaries } from '../demo/health.js';
import { applyCommon, type Outcome, type RunnableCheck } from './runner.js';
import { parseCheck } from './spec.js';

/** A duration followed by a second unit: "0.005s ms", "5ms ms", "1.5s s". */
const REPEATED_UNIT = /\d(?:ns|us|ms|s|m|h)\s+(?:ns|us|ms|s|m|h)\b/;

async function finish(type: string, spec: Record<string, unknown>, result: Partial<Outcome>): Promise<Outcome> {
  const parsed = parseCheck(type, spec);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const check: RunnableCheck = { id: 'c1', canaryId: 'k1', type, name: String(spec.name), spec };
  const out: Outcome = { pass: true, invalid: false, duration: 5, data: {}, start: new Date(), ...result };
  return applyCommon(check, parsed.common, out);
}

describe('result messages write a duration once, in the shared format', () => {
  it('formats milliseconds the one way server and web share', () => {
    expect(formatDuration(5)).toBe('5ms');
    expect(formatDuration(2.3)).toBe('2.3ms');
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(330_000)).toBe('5m 30s');
  });

  it("the demo http check's display reads 'HTTP 200', not 'HTTP 200 in 0.005s ms'", async () => {
    for (const canary of demoCanaries()) {
      for (const [type, checks] of Object.entries(canary.spec)) {
        if (!Array.isArray(checks)) continue;
        for (const spec of checks as Array<Record<string, unknown>>) {
          const out = await finish(type, spec, { data: { code: 200, elapsed: 5, stdout: 'ok\n', records: [] } });
          expect(out.message ?? '', `${canary.name}/${String(spec.name)}`).not.toMatch(REPEATED_UNIT);
          if (spec.name === 'console-healthz') expect(out.message).toBe('HTTP 200');
        }
      }
    }
  });

  it('a thresholdMillis failure names the time taken in the shared format', async () => {
    const out = await finish('tcp', { name: 'slow', endpoint: '127.0.0.1:1', thresholdMillis: 1000 }, { duration: 1500 });
    expect(out).toMatchObject({ pass: false, error: 'took 1.5s, more than thresholdMillis 1000' });
  });
});
