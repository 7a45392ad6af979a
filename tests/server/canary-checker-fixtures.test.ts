import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpbin, type Httpbin } from '../support/httpbin.js';
import { startPublicDns, type PublicDns } from '../support/public-dns.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// canary-checker's own fixtures (tests/fixtures/canary-checker, copied unchanged; its README says from where), run
// through the console's public door: each Canary is saved with POST /api/canary as an editor, then each of its checks
// is run with Run Now. The reference's test (test/run_test.go) expects every result of a `*_fail.yaml` to fail and
// every other result to pass; the same here, except where EXPECTED (the fixture's own word) or KNOWN (a difference
// the console still has) says otherwise. The public hosts the fixtures call are a local httpbin-like server
// (tests/support/httpbin.ts); its certificate is trusted through NODE_EXTRA_CA_CERTS (vitest.config.ts), as a user
// trusts a private CA. The public resolvers of the DNS fixtures are a local DNS server on 127.0.0.1:53 (the fixtures
// name port 53); where this process may not bind it, those checks are skipped, saying why.

type Outcome = 'pass' | 'fail' | 'refused';

const ROOT = join(import.meta.dirname, '../fixtures/canary-checker');
const TLS_DIR = join(ROOT, '_local');

/**
 * What a fixture expects where its file name does not say it (`file` for all its checks, `file#check` for one):
 * the fixture's own name, comments or labels.
 */
const EXPECTED: Record<string, Outcome> = {
  // the check is named so; canary-checker's README shows this canary as one passing and one failing check
  'minimal/http_simple.yaml#failing-check': 'fail',
  // "8 46 *" is not a schedule: a canary the console cannot schedule is refused when saved
  'minimal/schedule_invalid.yaml': 'refused',
  // `https://host:80` is not ADDRESS:PORT; the reference fails the check ("Incorrect endpoint format")
  'minimal/tcp_invalid.yaml': 'fail',
  // "every 30 @minutes" is no schedule either (the reference's cron.ParseStandard refuses it, so it never schedules
  // these canaries); the console refuses them at save
  'minimal/metrics-multiple.yaml': 'refused',
  'minimal/metrics-transformed.yaml': 'refused',
};

/**
 * Differences today, each with the outcome the console gives now and why. The test asserts that outcome, so a fix
 * makes it fail here: then remove the entry.
 */
const KNOWN: Record<string, { got: Outcome; why: string }> = {
  // --- features refused at save (server/modules/health/spec.ts, UNSUPPORTED) ---
  'minimal/http-crawl_pass.yaml#docs': { got: 'refused', why: 'http crawl is not supported' },
  'minimal/http_aws_sigv4_pass.yaml#aws-sigv4-signing': { got: 'refused', why: 'awsSigV4 request signing is not supported' },
};

/** Public hosts of the fixtures, served by the local server (the harness rewrites these names and nothing else). */
const PUBLIC_HOSTS = ['httpbin.flanksource.com', 'api.frankfurter.app', 'login-demo.curity.io', 'example.com', 'www.flanksource.com'];
/** Public resolvers of the DNS fixtures: their `server` field becomes the local DNS server (the query is left alone). */
const PUBLIC_RESOLVERS = ['8.8.8.8', '1.1.1.1'];
const DNS_PORT = 53;
/** The OAuth2 client of http_oauth2_pass.yaml, as Curity's demo server knows it. */
const OAUTH_CLIENTS = { 'demo-backend-client': 'MJlO3binatD9jk1' };

interface FixtureCheck {
  type: string;
  name: string;
}
interface FixtureCanary {
  doc: Record<string, unknown>;
  checks: FixtureCheck[];
}
interface Fixture {
  file: string;
  canaries: FixtureCanary[];
}

function listFixtures(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('_')) return [];
    const full = join(dir, e.name);
    if (e.isDirectory()) return listFixtures(full);
    return /\.ya?ml$/.test(e.name) && e.name !== 'kustomization.yaml' ? [relative(ROOT, full)] : [];
  }).sort();
}

function loadFixture(file: string): Fixture {
  const docs = parseAllDocuments(readFileSync(join(ROOT, file), 'utf8')).map((d) => d.toJS() as Record<string, unknown> | null);
  const canaries = docs.filter((d): d is Record<string, unknown> => d?.kind === 'Canary').map((doc) => {
    const spec = (doc.spec ?? {}) as Record<string, unknown>;
    const checks = Object.entries(spec).flatMap(([type, v]) =>
      Array.isArray(v) && v.every((x) => x && typeof x === 'object')
        ? v.map((c: Record<string, unknown>) => ({ type, name: String(c.name ?? '') }))
        : []);
    return { doc, checks };
  });
  return { file, canaries };
}

function expectedOf(file: string, check: string): Outcome {
  const own = EXPECTED[`${file}#${check}`] ?? EXPECTED[file];
  if (own) return own;
  return /_fail\.ya?ml$/.test(file) ? 'fail' : 'pass';
}

/** Each public host name in a string becomes the local server, on the port its scheme or explicit port implies. */
function rewriteHosts(s: string, local: Httpbin): string {
  let out = s;
  for (const host of PUBLIC_HOSTS) {
    const re = new RegExp(`(^|[/@])${host.replace(/\./g, '\\.')}(?::(\\d+))?(?=[/?#:\\s]|$)`, 'g');
    out = out.replace(re, (_m, lead: string, port: string | undefined, offset: number) => {
      const scheme = /(https?):\/\/[^/\s]*$/.exec(out.slice(0, offset + lead.length))?.[1];
      const secure = port ? port === '443' : scheme !== 'http';
      return `${lead}127.0.0.1:${secure ? local.httpsPort : local.httpPort}`;
    });
  }
  return out;
}

/** A spec with its hosts local: host names in any string, and the `server` of dns checks. */
function localSpec(spec: Record<string, unknown>, local: Httpbin): Record<string, unknown> {
  const out = rewriteDeep(spec, local) as Record<string, unknown>;
  if (Array.isArray(out.dns)) {
    out.dns = out.dns.map((c: Record<string, unknown>) =>
      (typeof c.server === 'string' && PUBLIC_RESOLVERS.includes(c.server) ? { ...c, server: '127.0.0.1' } : c));
  }
  return out;
}

function rewriteDeep(v: unknown, local: Httpbin): unknown {
  if (typeof v === 'string') return rewriteHosts(v, local);
  if (Array.isArray(v)) return v.map((x) => rewriteDeep(x, local));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewriteDeep(x, local)]));
  return v;
}

/** One namespace per fixture file: fixtures reuse canary names (http-check, http-basic-auth) across files. */
function namespaceOf(file: string): string {
  return file.replace(/\.ya?ml$/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

const fixtures = listFixtures(ROOT).map(loadFixture);

let t: TestContext;
let editor: Record<string, string>;
let local: Httpbin;
let dns: PublicDns | undefined;
/** Why the local DNS server could not start (the DNS fixtures are skipped then). */
let dnsMissing: string | undefined;

beforeAll(async () => {
  local = await startHttpbin({
    tls: { cert: readFileSync(join(TLS_DIR, 'httpbin.crt'), 'utf8'), key: readFileSync(join(TLS_DIR, 'httpbin.key'), 'utf8') },
    oauthClients: OAUTH_CLIENTS,
  });
  dns = await startPublicDns('127.0.0.1', DNS_PORT).catch((err: NodeJS.ErrnoException) => {
    dnsMissing = `no local DNS server on 127.0.0.1:${DNS_PORT} (${err.code ?? err.message})`;
    return undefined;
  });
  // MODE=agent runs no scheduler: only Run Now produces results
  t = await createTestApp({ MODE: 'agent' });
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
});
afterAll(async () => {
  await t?.close();
  await local?.close();
  await dns?.close();
});

it('finds the copied fixtures', () => {
  expect(fixtures.length).toBeGreaterThan(30);
  for (const f of fixtures) expect(f.canaries.length, f.file).toBeGreaterThan(0);
});

it('every EXPECTED and KNOWN entry names a fixture (and check) that exists', () => {
  const keys = new Set(fixtures.flatMap((f) => [f.file, ...f.canaries.flatMap((c) => c.checks.map((k) => `${f.file}#${k.name}`))]));
  for (const k of [...Object.keys(EXPECTED), ...Object.keys(KNOWN)]) expect(keys.has(k), k).toBe(true);
});

describe.each(fixtures.map((f) => [f.file, f] as const))('%s', (file, fixture) => {
  /** check name → its id, or why its canary was refused at save */
  const saved = new Map<string, { id: string } | { refused: string }>();

  beforeAll(async () => {
    for (const { doc, checks } of fixture.canaries) {
      const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
      const payload = {
        apiVersion: doc.apiVersion, kind: 'Canary',
        metadata: { ...metadata, namespace: namespaceOf(file) },
        spec: localSpec((doc.spec ?? {}) as Record<string, unknown>, local),
      };
      const res = await t.app.inject({ method: 'POST', url: '/api/canary', headers: editor, payload });
      if (res.statusCode !== 201) {
        for (const c of checks) saved.set(c.name, { refused: `${res.statusCode} ${res.body}` });
        continue;
      }
      const body = res.json() as { checks: Array<{ id: string; type: string; name: string }> };
      for (const c of body.checks) saved.set(c.name, { id: c.id });
    }
  });

  const checks = fixture.canaries.flatMap((c) => c.checks);
  it.for(checks.map((c) => [c.name, c] as const))('%s', async ([name, check], ctx) => {
    if (check.type === 'dns' && dnsMissing) ctx.skip(dnsMissing);
    const known = KNOWN[`${file}#${name}`] ?? KNOWN[file];
    const want = known?.got ?? expectedOf(file, name);
    const s = saved.get(name);
    let got: Outcome;
    let why: string;
    if (!s) {
      got = 'refused';
      why = 'no check of this name was created';
    } else if ('refused' in s) {
      got = 'refused';
      why = s.refused;
    } else {
      const res = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${s.id}`, headers: editor });
      expect(res.statusCode, res.body).toBe(200);
      const r = res.json() as { pass: boolean; invalid: boolean; message?: string; error?: string };
      got = r.pass ? 'pass' : 'fail';
      why = JSON.stringify({ invalid: r.invalid, message: r.message, error: r.error });
    }
    // FIXTURES_LOG=1 prints every outcome, to classify fixtures after a change
    if (process.env.FIXTURES_LOG) console.log(`OUTCOME ${file}#${name} ${got} ${why.slice(0, 300)}`);
    const note = known ? `known difference (${known.why}): if fixed, remove it from KNOWN` : `expected ${want}`;
    expect(got, `${file}#${name}: ${note}; got ${got}: ${why}`).toBe(want);
  });
});
