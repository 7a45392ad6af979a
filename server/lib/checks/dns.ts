import { promises as dns } from 'node:dns';
import { isIP, isIPv6 } from 'node:net';
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
  /** Every answer expected, in any order (case and a name's trailing dot ignored). */
  exactreply: z.array(z.string()).optional(),
  /** Seconds, as the reference. */
  timeout: z.number().positive().optional(),
});
type DnsSpec = z.infer<typeof DnsSpec>;

/** Types whose answers are names (or start with one), which Go prints fully qualified. */
const NAME_TYPES = new Set(['CNAME', 'MX', 'NS', 'PTR', 'SRV']);

/** A name as Go's resolver returns it: fully qualified, with the trailing dot (`smtp.google.com.`). */
const fqdn = (name: string) => (name.endsWith('.') ? name : `${name}.`);

/**
 * An answer as exactreply compares it: case-insensitive, as the reference; a name's trailing dot is not required
 * (`smtp.google.com 10` matches `smtp.google.com. 10`), which the reference would fail.
 */
function norm(type: string, s: string): string {
  const t = s.trim().toLowerCase();
  return NAME_TYPES.has(type) ? t.split(/\s+/).map((w) => w.replace(/\.$/, '')).join(' ') : t;
}

const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * The canonical name, as Go's LookupCNAME gives it (the reference's CNAME query): the target of the name's CNAME
 * record, else the name itself when it has address records (it is its own canonical name), else an error.
 */
async function canonicalName(resolver: dns.Resolver, name: string): Promise<string> {
  const [cname, a, aaaa] = await Promise.allSettled([resolver.resolveCname(name), resolver.resolve4(name), resolver.resolve6(name)]);
  if (cname.status === 'fulfilled' && cname.value.length) return fqdn(cname.value[0]);
  if ((a.status === 'fulfilled' && a.value.length) || (aaaa.status === 'fulfilled' && aaaa.value.length)) return fqdn(name);
  const reasons = [cname, a, aaaa].flatMap((r) => (r.status === 'rejected' ? [r.reason as { code?: string }] : []));
  // a timeout or a refusal says more than "no such name"
  throw reasons.find((e) => !NOT_FOUND.has(e.code ?? '')) ?? reasons[0] ?? Object.assign(new Error('no records'), { code: 'ENODATA' });
}

/**
 * Answers written as the reference writes them (Go's net.Resolver): names fully qualified, MX `host. pref`, SRV
 * `target. port priority weight` (the reference does not compare SRV answers; this is the same shape), a TXT record's
 * strings joined into one answer.
 */
async function query(spec: DnsSpec, signal: AbortSignal, timeoutMs: number): Promise<string[]> {
  const type = spec.querytype;
  // Go's LookupHost answers an address with itself, without asking
  if ((type === 'A' || type === 'AAAA') && isIP(spec.query)) return [spec.query];
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
      case 'CNAME': return [await canonicalName(resolver, spec.query)];
      case 'NS': return (await resolver.resolveNs(spec.query)).map(fqdn);
      // as Go's LookupAddr, an address is asked as its in-addr.arpa / ip6.arpa name; a name is asked as written
      case 'PTR': return (isIP(spec.query) ? await resolver.reverse(spec.query) : await resolver.resolvePtr(spec.query)).map(fqdn);
      case 'TXT': return (await resolver.resolveTxt(spec.query)).map((parts) => parts.join(''));
      case 'MX': return (await resolver.resolveMx(spec.query))
        .sort((x, y) => x.priority - y.priority).map((r) => `${fqdn(r.exchange)} ${r.priority}`);
      case 'SRV': return (await resolver.resolveSrv(spec.query))
        .sort((x, y) => x.priority - y.priority || y.weight - x.weight).map((r) => `${fqdn(r.name)} ${r.port} ${r.priority} ${r.weight}`);
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
    // every answer once: the same multiset, in any order, as the reference's sorted DeepEqual
    const got = records.map((r) => norm(spec.querytype, r)).sort();
    const want = spec.exactreply.map((r) => norm(spec.querytype, r)).sort();
    if (got.length !== want.length || got.some((g, i) => g !== want[i])) {
      return { pass: false, duration, message, error: `got [${records.join(', ')}], expected [${spec.exactreply.join(', ')}]`, data };
    }
  }
  return { pass: true, duration, message, data, detail: { records: records.slice(0, 50) } };
}

/** A DNS query with expected answers. */
export const dnsCheck: CheckType<DnsSpec> = { type: 'dns', schema: DnsSpec, run };
