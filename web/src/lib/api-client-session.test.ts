// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, setHostedAuth } from './api-client';

/** The session check of spec 001 §8 / issue 17: where a tab goes when an API call says the session is not enough. */

function answer(status: number, body: unknown) {
  vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })));
}
const here = () => window.location.pathname + window.location.search;

beforeEach(() => window.history.replaceState(null, '', '/catalog?q=web'));
afterEach(() => {
  vi.unstubAllGlobals();
  setHostedAuth(false);
});

describe('api-client session check', () => {
  it('403 session_aal2_required → the second step, coming back here', async () => {
    answer(403, { error: { id: 'session_aal2_required', code: 403, status: 'Forbidden', message: 'aal2' }, redirect_browser_to: '/login?aal=aal2' });
    await expect(api.get('/api/catalog')).rejects.toMatchObject({ status: 403, code: 'session_aal2_required' });
    expect(here()).toBe('/login?aal=aal2&return_to=%2Fcatalog%3Fq%3Dweb');
  });

  it('a second factor required but none set: where the server says (the enrolment page)', async () => {
    answer(403, { error: { id: 'session_aal2_required', code: 403, status: 'Forbidden', message: 'enrol' }, redirect_browser_to: 'http://localhost:3000/profile-settings' });
    await expect(api.get('/api/catalog')).rejects.toMatchObject({ status: 403 });
    expect(here()).toBe('/profile-settings');
  });

  it('a role denial (403 without an error id) stays on the page', async () => {
    answer(403, { error: 'forbidden', message: 'You may not' });
    await expect(api.get('/api/catalog')).rejects.toMatchObject({ status: 403, message: 'You may not' });
    expect(here()).toBe('/catalog?q=web');
  });

  it('401 → /login?return_to=…; in hosted mode → /auth-state-checker?return_to=…', async () => {
    answer(401, { error: 'unauthorized' });
    await expect(api.get('/api/catalog')).rejects.toMatchObject({ status: 401 });
    expect(here()).toBe('/login?return_to=%2Fcatalog%3Fq%3Dweb');
    window.history.replaceState(null, '', '/catalog?q=web');
    setHostedAuth(true);
    await expect(api.get('/api/catalog')).rejects.toMatchObject({ status: 401 });
    expect(here()).toBe('/auth-state-checker?return_to=%2Fcatalog%3Fq%3Dweb');
  });

  it('a Kratos error body gives the ApiError its id and reason', async () => {
    answer(400, { error: { id: 'self_service_flow_return_to_forbidden', code: 400, status: 'Bad Request', reason: 'return_to is not allowed', message: 'bad' } });
    await expect(api.get('/api/.ory/x', { allowUnauthorized: true })).rejects.toMatchObject({
      code: 'self_service_flow_return_to_forbidden', message: 'return_to is not allowed',
    });
  });
});
