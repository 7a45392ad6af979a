import { promises as dns } from 'node:dns';
import { isIPv6 } from 'node:net';
import { z } from 'zod';
import type { CheckContext, CheckResult, CheckType } from './types.js';
import { errorText } from './util.js';

const QueryType = z.enum(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'NS', 'PTR']);

const DnsSpec = z.object({
  /** Name server; absent means the system resolver (getaddrinfo, so /etc/hosts too, for A and AAAA). */
  server: z.string().optional(),
  port: z.number().int().min(1).max(65535).default(53),
  query: z.string().min(1),
  querytype: z.string().transform((s) => s.toUpperCase()).pipe(QueryType).default('A'),
  minrecords: z.number().int().min(0).optional(),
  /** Every answer expected, in any order (trailing dots ignored). */
  exactreply: z.array(z.string()).optional(),
  /** Seconds, as the reference. */
  timeout: z.number().positive().optional(),
});
type DnsSpec = z.infer<typeof DnsSpec>;

const norm = (s: string) => s.trim().replace(/\.$/, '').toLowerCase();

/** Answers formatted as the reference prints them (MX `host pref`, SRV `target port priority weight`). */
async function query(spec: DnsSpec, signal: AbortSignal, timeoutMs: number): Promise<string[]> {
  const type = spec.querytype;
  if (!spec.server && (type === 'A' || type === 'AAAA')) {
    // dns.lookup cannot be cancelled; the runner's timeout still bounds the check
    const found = await dns.lookup(spec.query, { all: true, family: type === 'A' ? 4 : 6 });
    return found.map((a) => a.address);
  }
  const resolver = new dns.Resolver({ timeout: Math.max(100, Math.min(timeoutMs, (spec.timeout ?? 10) * 1000)), tries: 1 });
  if (spec.server) resolver.setServers([isIPv6(spec.server) ? `[${spec.server}]:${spec.port}` : `${spec.server}:${spec.port}`]);
  const onAbort = () => resolver.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    switch (type) {
      case 'A': return await resolver.resolve4(spec.query);
      case 'AAAA': return await resolver.resolve6(spec.query);
      case 'CNAME': return await resolver.resolveCname(spec.query);
      case 'NS': return await resolver.resolveNs(spec.query);
      case 'PTR': return await resolver.resolvePtr(spec.query);
      case 'TXT': return (await resolver.resolveTxt(spec.query)).map((parts) => parts.join(''));
      case 'MX': return (await resolver.resolveMx(spec.query)).map((r) => `${r.exchange} ${r.priority}`);
      case 'SRV': return (await resolver.resolveSrv(spec.query)).map((r) => `${r.name} ${r.port} ${r.priority} ${r.weight}`);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

async function run(spec: DnsSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  let records: string[];
  try {
    records = await query(spec, ctx.signal, ctx.timeoutMs);
  } catch (err) {
    const duration = Math.round(performance.now() - start);
    const code = (err as { code?: string }).code;
    const error = ctx.signal.aborted ? `timed out after ${ctx.timeoutMs} ms`
      : code === 'ENOTFOUND' || code === 'ENODATA' ? `no ${spec.querytype} records for ${spec.query}`
      : errorText(err);
    return { pass: false, duration, error, data: { records: [], query: spec.query, querytype: spec.querytype } };
  }
  const duration = Math.round(performance.now() - start);
  const data = { records, query: spec.query, querytype: spec.querytype, elapsed: duration };
  const message = `${spec.querytype} ${spec.query}: ${records.join(', ').slice(0, 500)}`;
  if (spec.minrecords !== undefined && records.length < spec.minrecords) {
    return { pass: false, duration, message, error: `got ${records.length} records, expected at least ${spec.minrecords}`, data };
  }
  if (spec.exactreply?.length) {
    const got = [...new Set(records.map(norm))].sort();
    const want = [...new Set(spec.exactreply.map(norm))].sort();
    if (got.length !== want.length || got.some((g, i) => g !== want[i])) {
      return { pass: false, duration, message, error: `got [${records.join(', ')}], expected [${spec.exactreply.join(', ')}]`, data };
    }
  }
  return { pass: true, duration, message, data, detail: { records: records.slice(0, 50) } };
}

/** A DNS query with expected answers. */
export const dnsCheck: CheckType<DnsSpec> = { type: 'dns', schema: DnsSpec, run };
