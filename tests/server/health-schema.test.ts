import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

let t: TestContext;
let viewer: Record<string, string>;

beforeAll(async () => {
  // console mode with no canaries: the scheduler has nothing to run
  t = await createTestApp();
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
});
afterAll(async () => {
  await t.close();
});

const getSchema = (headers: Record<string, string> = viewer) =>
  t.app.inject({ method: 'GET', url: '/api/schemas/canary.schema.json', headers });

describe('GET /api/schemas/canary.schema.json', () => {
  it('needs a signed-in user', async () => {
    expect((await getSchema({})).statusCode).toBe(401);
  });

  it('describes the Canary spec: canary fields and every check type the server runs', async () => {
    const res = await getSchema();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/schema\+json/);
    const schema = res.json();
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['schedule', 'interval', 'http', 'tcp', 'dns', 'exec']));
    // name is optional, as in the reference: a nameless check is named after its description or endpoint
    expect(schema.properties.http.items.required ?? []).not.toContain('name');
    expect(schema.properties.http.items.properties.thresholdMillis.type).toBe('integer');
  });

  it('accepts a spec the server accepts and flags what the server refuses', async () => {
    const validate = new Ajv({ strict: false, allErrors: true }).compile((await getSchema()).json());
    const good = { schedule: '@every 1m', http: [{ name: 'home', url: 'http://localhost/healthz', thresholdMillis: 500, responseCodes: [200] }], tcp: [{ name: 'db', endpoint: 'localhost:5432' }] };
    expect(validate(good), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...good, http: [{ name: 'home', url: 'x', thresholdMillis: 'slow' }] })).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe('/http/0/thresholdMillis');
    expect(validate({ ...good, http: [{ url: 'http://x', responseCodes: ['ok'] }] })).toBe(false);
    // webhook as the reference writes it (one object) and as a list; other types only as lists
    expect(validate({ webhook: { name: 'gh', token: 't' } }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ webhook: [{ name: 'gh' }] })).toBe(true);
    expect(validate({ http: { name: 'h', url: 'http://x' } })).toBe(false);
    expect(validate({ ...good, kubernetes: [] })).toBe(false);
  });
});
