import { describe, expect, it } from 'vitest';
import { needsRunContext, renderTemplatedFields, TemplateFieldError, templateScope } from './check-templates.js';

const check = { id: 'c1', canaryId: 'k1', name: 'db', namespace: 'ops', spec: { url: 'postgres://app:s3cret@db:5432/x' } };

describe('templateScope', () => {
  it('gives canary and check as the reference binds them, without a password in the endpoint', () => {
    expect(templateScope(check, { id: 'k1', name: 'prod', namespace: 'ops', labels: { team: 'a' } })).toEqual({
      canary: { name: 'prod', namespace: 'ops', labels: { team: 'a' }, id: 'k1' },
      check: { name: 'db', id: 'c1', description: '', labels: {}, endpoint: 'postgres://app@db:5432/x' },
    });
  });
});

describe('needsRunContext', () => {
  it('is true only for a templated field, an http body template or a mention of last_result', () => {
    expect(needsRunContext('postgres', { query: 'SELECT 1' })).toBe(false);
    expect(needsRunContext('postgres', { query: 'SELECT {{ .canary.name }}' })).toBe(true);
    expect(needsRunContext('folder', { path: '/x', filter: { since: 'now-1h' } })).toBe(false);
    expect(needsRunContext('folder', { path: '/x', filter: { since: '{{ last_result.results.max }}' } })).toBe(true);
    expect(needsRunContext('http', { url: 'http://x', body: '{}', templateBody: true })).toBe(true);
    expect(needsRunContext('exec', { script: 'true', display: { expr: 'last_result().message' } })).toBe(true);
    expect(needsRunContext('exec', { script: 'true', display: { expr: 'stdout' } })).toBe(false);
  });
});

describe('renderTemplatedFields', () => {
  const scope = templateScope(check);

  it('renders a nested field into a copy; a spec without templates is returned as it is', () => {
    const spec = { path: '/x', filter: { since: '{{ if last_result.results.max }}{{ last_result.results.max }}{{ else }}now-60d{{ end }}', regex: 'a' } };
    const out = renderTemplatedFields('folder', spec, scope);
    expect(out).toEqual({ path: '/x', filter: { since: 'now-60d', regex: 'a' } });
    expect(spec.filter.since).toContain('{{');
    const lastResult = { status: true, invalid: false, createdAt: new Date(), duration: 1, message: '', error: '', results: { max: '2026-01-01T00:00:00Z' } };
    expect(renderTemplatedFields('folder', spec, scope, lastResult).filter).toEqual({ since: '2026-01-01T00:00:00Z', regex: 'a' });
    const plain = { query: 'SELECT 1' };
    expect(renderTemplatedFields('postgres', plain, scope)).toBe(plain);
  });

  it('names the field that failed', () => {
    expect(() => renderTemplatedFields('mysql', { query: 'SELECT {{ .check.name.x }}' }, scope)).toThrow(TemplateFieldError);
    expect(() => renderTemplatedFields('mysql', { query: 'SELECT {{ .check.name.x }}' }, scope)).toThrow(/^query: /);
  });
});
