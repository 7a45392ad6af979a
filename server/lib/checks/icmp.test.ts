import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { createIcmpCheck, findPing, parsePingOutput } from './icmp.js';

const ping = findPing();
const icmp = createIcmpCheck(ping);
const run = (spec: Parameters<typeof icmp.run>[0], timeoutMs?: number) => icmp.run(icmp.schema.parse(spec), checkContext(timeoutMs));

const IPUTILS_LOSS = `PING 10.0.0.9 (10.0.0.9) 56(84) bytes of data.
64 bytes from 10.0.0.9: icmp_seq=1 ttl=64 time=1.20 ms
64 bytes from 10.0.0.9: icmp_seq=3 ttl=64 time=3.40 ms

--- 10.0.0.9 ping statistics ---
4 packets transmitted, 2 received, 50% packet loss, time 3004ms
rtt min/avg/max/mdev = 1.200/2.300/3.400/1.100 ms
`;
const IPUTILS_NONE = `PING 10.0.0.8 (10.0.0.8) 56(84) bytes of data.

--- 10.0.0.8 ping statistics ---
3 packets transmitted, 0 received, 100% packet loss, time 2040ms
`;
const BUSYBOX = `PING example (192.0.2.7): 56 data bytes
64 bytes from 192.0.2.7: seq=0 ttl=64 time=0.512 ms

--- example ping statistics ---
1 packets transmitted, 1 packets received, 0% packet loss
round-trip min/avg/max = 0.512/0.512/0.512 ms
`;

describe('parsePingOutput', () => {
  it('reads iputils summaries, with and without replies', () => {
    expect(parsePingOutput(IPUTILS_LOSS)).toEqual({ ip: '10.0.0.9', packetsSent: 4, packetsReceived: 2, packetLoss: 50, min: 1.2, avg: 2.3, max: 3.4, mdev: 1.1 });
    expect(parsePingOutput(IPUTILS_NONE)).toMatchObject({ packetsSent: 3, packetsReceived: 0, packetLoss: 100, avg: undefined });
  });

  it('reads busybox summaries', () => {
    expect(parsePingOutput(BUSYBOX)).toMatchObject({ ip: '192.0.2.7', packetsSent: 1, packetsReceived: 1, packetLoss: 0, avg: 0.512, mdev: undefined });
  });

  it('finds nothing in an error', () => {
    expect(parsePingOutput('ping: nonexistent.invalid: Name or service not known')).toBeUndefined();
  });
});

describe('icmp verdicts over a ping that reports loss (a script printing real iputils output)', () => {
  let dir: string;
  let lossy: ReturnType<typeof createIcmpCheck>;
  let silent: ReturnType<typeof createIcmpCheck>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'health-ping-'));
    const script = async (name: string, output: string, code: number) => {
      const path = join(dir, name);
      await writeFile(path, `#!/bin/sh\ncat <<'OUT'\n${output}OUT\nexit ${code}\n`);
      await chmod(path, 0o755);
      return createIcmpCheck(path);
    };
    lossy = await script('ping-lossy', IPUTILS_LOSS, 0);
    silent = await script('ping-silent', IPUTILS_NONE, 1);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('fails on loss above packetLossThreshold and passes within it', async () => {
    expect(await lossy.run({ endpoint: '10.0.0.9', packetLossThreshold: 20 }, checkContext())).toMatchObject({
      pass: false,
      error: 'packet loss of 50% > threshold of 20%',
      duration: 2,
    });
    expect((await lossy.run({ endpoint: '10.0.0.9', packetLossThreshold: 50 }, checkContext())).pass).toBe(true);
  });

  it('fails on an average RTT above thresholdMillis', async () => {
    expect(await lossy.run({ endpoint: '10.0.0.9', thresholdMillis: 2 }, checkContext())).toMatchObject({
      pass: false,
      error: 'average latency 2.3 ms > thresholdMillis 2',
    });
  });

  it('fails when nothing came back, even without thresholds', async () => {
    expect(await silent.run({ endpoint: '10.0.0.8' }, checkContext())).toMatchObject({
      pass: false,
      error: 'no reply from 10.0.0.8 (100% packet loss)',
      data: { packetsSent: 3, packetsReceived: 0 },
    });
  });
});

describe('icmp check without ping', () => {
  it('reports the check as invalid with what to install', async () => {
    const none = createIcmpCheck(undefined);
    const r = await none.run({ endpoint: '127.0.0.1' }, checkContext());
    expect(r).toMatchObject({ pass: false, invalid: true, error: expect.stringMatching(/ping command is not installed.*iputils-ping/) });
  });
});

describe.each([
  [{}, /endpoint is required/],
  [{ endpoint: '-f' }, /invalid endpoint/],
  [{ endpoint: '127.0.0.1; reboot' }, /invalid endpoint/],
])('icmp spec %j', (spec, message) => {
  it('is invalid', async () => {
    expect(await run(spec)).toMatchObject({ pass: false, invalid: true, error: expect.stringMatching(message) });
  });
});

describe.skipIf(!ping)(`icmp check with the system ping${ping ? '' : ' (skipped: ping is not installed; apt-get install -y iputils-ping)'}`, () => {
  it('pings loopback: every packet back, duration is the average RTT', async () => {
    const r = await run({ endpoint: '127.0.0.1', packetCount: 2, thresholdMillis: 1000, packetLossThreshold: 0 });
    expect(r.error).toBeUndefined();
    expect(r.pass).toBe(true);
    expect(r.data).toMatchObject({ endpoint: '127.0.0.1', ip: '127.0.0.1', packetsSent: 2, packetsReceived: 2, packetLoss: 0 });
    expect(r.duration).toBe(Math.round(r.data.avg as number));
    expect(r.duration).toBeLessThan(1000);
    // the average once, in the shared format ("avg 0.05ms"), never with a second unit appended
    expect(r.message).toMatch(/^0% loss, avg [\d.]+ms$/);
  });

  it('resolves a host name', async () => {
    const r = await run({ endpoint: 'localhost', packetCount: 1 });
    expect(r.pass).toBe(true);
    expect(String(r.data.ip)).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('fails (not invalid) on a name that does not resolve', async () => {
    const r = await run({ endpoint: 'no-such-host.invalid', packetCount: 1 });
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/no-such-host\.invalid/);
  });

  it('kills ping when the signal fires', async () => {
    const t0 = Date.now();
    const r = await run({ endpoint: '127.0.0.1', packetCount: 100 }, 600);
    expect(r).toMatchObject({ pass: false, error: 'timed out after 600 ms' });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
