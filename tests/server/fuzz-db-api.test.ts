import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// Property-based fuzzing of /api/db: thousands of random and hostile query strings and bodies. Whatever comes in,
// the API answers without a 5xx, every error has PostgREST's JSON shape, and a refused request changes nothing.

const RELATIONS = [
  'people', 'identities', 'people_roles', 'teams', 'team_members', 'properties', 'access_tokens', 'invites',
  'agents', 'agents_summary', 'sessions', 'identity_credentials', 'pg_user', 'rpc', 'rpc/nope', '', '%00',
];
const COLUMNS = [
  'id', 'name', 'email', 'created_by', 'created_at', 'deleted_at', 'value', 'password_hash', 'token_hash', 'traits',
  'roles', 'spec', 'team_id', 'person_id', 'properties', 'last_seen', 'labels', '*', 'x', '"', 'teams', 'people',
];
const TOKENS = [
  'eq.', 'neq.', 'gt.', 'lte.', 'like.', 'ilike.', 'in.', 'is.', 'cs.', 'cd.', 'ov.', 'fts.', 'not.', 'match.',
  'null', 'true', 'unknown', '(', ')', ',', '.', ':', '::', '!', '!inner', '!left', '->', '->>', '"', '\\', '*', '%',
  '{', '}', '[', ']', 'asc', 'desc', 'nullsfirst', '1', '-1', '0', '1e999', 'NaN', '2026-01-01', 'now-24h', '>', '<',
  '\u0000', '\'', ';', '--', 'DROP TABLE people', 'select', 'or', 'and', 'text', 'int', 'json', 'pg_sleep(5)',
  '00000000-0000-0000-0000-000000000000', 'not-a-uuid', ' ', '\n', 'é', '😀',
];
const KEYS = ['select', 'order', 'limit', 'offset', 'or', 'and', 'not.or', 'not.and', 'on_conflict', 'columns',
  ...COLUMNS, ...COLUMNS.map((c) => `${c}.filter`), 'teams.name', 'team_members.limit', 'created_by.order'];

const fragment = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...TOKENS, ...COLUMNS), { minLength: 0, maxLength: 12 }).map((t) => t.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom('(', ')', ','), { maxLength: 200 }).map((t) => t.join('')) },
  { weight: 1, arbitrary: fc.nat({ max: 60 }).map((n) => 'or=('.repeat(n) + 'id.eq.1' + ')'.repeat(n)) },
);
const param = fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 12 })), fragment);
const query = fc.array(param, { maxLength: 6 }).map((ps) =>
  ps.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

const headerArb = fc.record(
  {
    range: fc.oneof(fc.constantFrom('0-24', '10-', '-5', '5-1', 'items=0-1', '0-99999999999'), fragment),
    prefer: fc.oneof(
      fc.constantFrom('count=exact', 'count=planned', 'return=representation', 'return=minimal', 'return=headers-only',
        'resolution=merge-duplicates', 'resolution=ignore-duplicates', 'handling=strict, count=bogus', 'tx=rollback'),
      fragment),
    accept: fc.constantFrom('application/json', 'application/vnd.pgrst.object+json', 'text/csv', '*/*', 'x/y'),
  },
  { requiredKeys: [] },
);

const jsonValue = fc.oneof(
  fc.constant(null), fc.boolean(), fc.double(), fc.integer(), fc.string({ maxLength: 30 }),
  fc.constantFrom('\u0000', 'not-a-uuid', '2026-13-45', 'x'.repeat(5000), '00000000-0000-0000-0000-000000000000'),
  fc.json().map((j) => JSON.parse(j) as unknown),
);
const row = fc.dictionary(fc.constantFrom(...COLUMNS, 'first', 'icon', 'source'), jsonValue, { maxKeys: 5 });
const body = fc.oneof(
  row.map((r) => JSON.stringify(r)),
  fc.array(row, { maxLength: 4 }).map((r) => JSON.stringify(r)),
  fc.string({ maxLength: 60 }),
  fc.constantFrom('', '{', '[]', 'null', '"x"', '[1,2]', '{"a":', '{"name":"x"}{"name":"y"}'),
);

let t: TestContext;
let headers: Record<string, string>;

// Everything a refused request must leave untouched (sessions are left out: reads refresh last_seen_at).
const TABLES = ['people', 'identities', 'identity_credentials', 'person_roles', 'teams', 'team_members', 'properties',
  'access_tokens', 'invites', 'agents'];
async function fingerprint(): Promise<string> {
  const parts = TABLES.map((name) => `(SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM ${name} x)`);
  const { rows } = await t.db.query(`SELECT concat_ws(',', ${parts.join(', ')}) AS f`);
  return rows[0].f;
}

function expectErrorShape(status: number, payload: string) {
  expect(status, payload).toBeLessThan(500);
  if (status >= 400) {
    const err = JSON.parse(payload);
    expect(Object.keys(err).sort()).toEqual(['code', 'details', 'hint', 'message']);
    expect(typeof err.message).toBe('string');
    expect(typeof err.code).toBe('string');
  }
}

beforeAll(async () => {
  t = await createTestApp();
  const admin = await makePerson(t.db, { roles: ['admin'] });
  headers = await bearerHeaders(t.db, admin.id);
  await t.db.query(`INSERT INTO teams (name, created_by) SELECT 'team ' || g, $1 FROM generate_series(1, 20) g`, [admin.id]);
});
afterAll(() => t.close());

describe('/api/db under random and hostile input', () => {
  it('reads never fail with a 5xx and errors keep the JSON shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...RELATIONS), query, headerArb, fc.constantFrom('GET', 'HEAD'),
        async (rel, qs, extra, method) => {
          const res = await t.app.inject({ method, url: `/api/db/${rel}?${qs}`, headers: { ...headers, ...extra } });
          expect(res.statusCode, `${method} /api/db/${rel}?${qs}`).toBeLessThan(500);
          if (method === 'GET') expectErrorShape(res.statusCode, res.payload);
        }),
      { numRuns: 2500 },
    );
  });

  it('writes never fail with a 5xx, and a refused write changes nothing', async () => {
    let before = await fingerprint();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...RELATIONS), query, body, headerArb, fc.constantFrom('POST', 'PATCH', 'DELETE', 'PUT'),
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/xml'),
        async (rel, qs, payload, extra, method, contentType) => {
          const res = await t.app.inject({
            method, url: `/api/db/${rel}?${qs}`, payload, headers: { ...headers, ...extra, 'content-type': contentType },
          });
          expectErrorShape(res.statusCode, res.payload);
          const after = await fingerprint();
          if (res.statusCode >= 400) expect(after, `${method} /api/db/${rel}?${qs} ${payload}`).toBe(before);
          before = after;
        }),
      { numRuns: 1500 },
    );
  });

  it('refuses an oversized body with 413 and changes nothing', async () => {
    const before = await fingerprint();
    const res = await t.app.inject({
      method: 'POST', url: '/api/db/properties', headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'big', value: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expectErrorShape(res.statusCode, res.payload);
    expect(await fingerprint()).toBe(before);
  });
});
