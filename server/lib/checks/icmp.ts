import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { abortedText, failResult, invalidResult, passResult } from './lib/result.js';
import type { CheckContext, CheckResult, CheckType } from './types.js';
import { formatDuration } from '../../contracts/duration.js';

/** Default number of echo requests (the reference leaves it to the caller; 0 there means "until timeout"). */
export const DEFAULT_PACKET_COUNT = 3;
const MAX_OUTPUT = 64 * 1024;

export const IcmpCheckSpec = z.looseObject({
  /** Host name or IP address. */
  endpoint: z.string().optional(),
  /** Highest acceptable average round-trip time. */
  thresholdMillis: z.number().min(0).optional(),
  /** Highest acceptable packet loss, in percent. Unset: only a total loss fails. */
  packetLossThreshold: z.number().min(0).max(100).optional(),
  packetCount: z.number().int().min(1).max(100).optional(),
});
export type IcmpCheckSpec = z.infer<typeof IcmpCheckSpec>;

/** What `ping` printed, parsed. */
export interface PingStats {
  ip?: string;
  packetsSent: number;
  packetsReceived: number;
  /** Percent. */
  packetLoss: number;
  /** Round-trip times in ms (undefined when nothing came back). */
  min?: number;
  avg?: number;
  max?: number;
  mdev?: number;
}

/** Parses the summary of iputils or busybox `ping` (run with LC_ALL=C); undefined when there is none. */
export function parsePingOutput(out: string): PingStats | undefined {
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(out);
  if (!counts) return undefined;
  const loss = /([\d.]+)% packet loss/.exec(out);
  const rtt = /(?:rtt|round-trip) min\/avg\/max(?:\/(?:mdev|stddev))? = ([\d.]+)\/([\d.]+)\/([\d.]+)(?:\/([\d.]+))? ms/.exec(out);
  const sent = Number(counts[1]);
  const received = Number(counts[2]);
  return {
    ip: /^PING \S+ \(([^)]+)\)/m.exec(out)?.[1],
    packetsSent: sent,
    packetsReceived: received,
    packetLoss: loss ? Number(loss[1]) : sent ? (100 * (sent - received)) / sent : 100,
    min: rtt ? Number(rtt[1]) : undefined,
    avg: rtt ? Number(rtt[2]) : undefined,
    max: rtt ? Number(rtt[3]) : undefined,
    mdev: rtt?.[4] !== undefined ? Number(rtt[4]) : undefined,
  };
}

/** The system `ping`, if installed. */
export function findPing(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/bin', '/bin', '/usr/sbin', '/sbin'];
  for (const d of dirs) if (d && existsSync(`${d}/ping`)) return `${d}/ping`;
  return undefined;
}

/**
 * An `icmp` check type over the given `ping` binary (raw ICMP sockets need privileges Node does not have; the
 * system ping has them). Passes when replies came back with loss <= packetLossThreshold and average RTT <=
 * thresholdMillis. `duration` is the average RTT, as in the reference (so the runner's thresholdMillis means
 * latency, not the time spent waiting between packets). `data` = PingStats plus `endpoint`.
 */
export function createIcmpCheck(ping: string | undefined): CheckType<IcmpCheckSpec> {
  return { type: 'icmp', schema: IcmpCheckSpec, run: (spec, ctx) => runIcmp(ping, spec, ctx) };
}

export const icmpCheck = createIcmpCheck(findPing());

// a host name, IPv4 or IPv6 address (zone index allowed); never something ping could read as an option
const ENDPOINT = /^[A-Za-z0-9_.:%-]+$/;

async function runIcmp(ping: string | undefined, spec: IcmpCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  const endpoint = spec.endpoint?.trim().replace(/^\[(.*)\]$/, '$1');
  if (!endpoint) return invalidResult(start, 'endpoint is required');
  if (!ENDPOINT.test(endpoint) || endpoint.startsWith('-')) return invalidResult(start, `invalid endpoint "${endpoint}" (expected a host name or IP address)`);
  if (!ping || !existsSync(ping)) return invalidResult(start, 'the ping command is not installed on this server (Debian: iputils-ping)');
  const count = spec.packetCount ?? DEFAULT_PACKET_COUNT;
  const deadline = Math.max(1, Math.ceil(ctx.timeoutMs / 1000));
  const args = ['-n', '-c', String(count), '-i', '0.2', '-W', String(Math.min(deadline, 5)), '-w', String(deadline), '--', endpoint];
  const run = await spawnBounded(ping, args, ctx.signal);
  if (run.aborted) return failResult(start, abortedText(ctx));
  if (run.spawnError) return failResult(start, `could not run ping: ${run.spawnError}`);
  const stats = parsePingOutput(run.stdout);
  const problem = (run.stderr.trim() || run.stdout.trim()).split('\n').at(-1) ?? '';
  if (!stats) return failResult(start, problem || `ping exited with code ${run.code}`);
  const data = { endpoint, ...stats };
  const verdict = icmpVerdict(spec, endpoint, stats);
  const result = verdict
    ? failResult(start, verdict, { data, detail: data })
    : passResult(start, { message: `${stats.packetLoss}% loss, avg ${formatDuration(stats.avg)}`, data, detail: data });
  return stats.avg !== undefined ? { ...result, duration: Math.round(stats.avg) } : result;
}

function icmpVerdict(spec: IcmpCheckSpec, endpoint: string, stats: PingStats): string | undefined {
  if (stats.packetsSent === 0) return 'Failed to check icmp, no packets sent';
  if (stats.packetsReceived === 0) return `no reply from ${endpoint} (100% packet loss)`;
  if (spec.packetLossThreshold !== undefined && stats.packetLoss > spec.packetLossThreshold) {
    return `packet loss of ${stats.packetLoss}% > threshold of ${spec.packetLossThreshold}%`;
  }
  if (spec.thresholdMillis !== undefined && stats.avg !== undefined && stats.avg > spec.thresholdMillis) {
    return `average latency ${stats.avg} ms > thresholdMillis ${spec.thresholdMillis}`;
  }
  return undefined;
}

interface SpawnOutcome {
  stdout: string;
  stderr: string;
  code: number | null;
  aborted: boolean;
  spawnError?: string;
}

function spawnBounded(bin: string, args: string[], signal: AbortSignal): Promise<SpawnOutcome> {
  return new Promise((resolve) => {
    const out = { stdout: '', stderr: '' };
    if (signal.aborted) return resolve({ ...out, code: null, aborted: true });
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
    const onAbort = () => child.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    const collect = (key: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (out[key].length < MAX_OUTPUT) out[key] += chunk.toString('utf8').slice(0, MAX_OUTPUT - out[key].length);
    };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));
    child.once('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      resolve({ ...out, code: null, aborted: false, spawnError: err.message });
    });
    child.once('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      resolve({ ...out, code, aborted: signal.aborted });
    });
  });
}
