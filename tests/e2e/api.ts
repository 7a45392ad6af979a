import { expect, request, type APIRequestContext } from '@playwright/test';
import { ADMIN, BASE_URL } from './env';

/** A signed-in API session (cookie + CSRF token), as the browser holds one. */
export interface ApiSession {
  api: APIRequestContext;
  csrf: string;
}

export async function signInApi(username: string, password: string): Promise<ApiSession> {
  const api = await request.newContext({ baseURL: BASE_URL });
  const res = await api.post('/api/auth/login', { data: { username, password } });
  expect(res.status(), await res.text()).toBe(200);
  return { api, csrf: (await res.json()).csrf_token };
}

export const adminApi = () => signInApi(ADMIN.email, ADMIN.password);

let seq = 0;

/**
 * Invites a user with the role and registers them through the invite link; returns their credentials. Every such
 * user is "Vera Viewer" or "Vera Tester" unless `name` says otherwise: a test that picks the person by name (a
 * mention) gives a name of its own, since other specs on the shared server make Veras too.
 */
export async function createUser(
  admin: ApiSession,
  role: 'viewer' | 'editor' | 'admin' | 'responder' | 'commander',
  name: { firstName: string; lastName: string } = { firstName: 'Vera', lastName: role === 'viewer' ? 'Viewer' : 'Tester' },
) {
  const email = `${role}-${Date.now()}-${seq++}@e2e.test`;
  const password = `pw-${role}-e2e-123`;
  const invite = await admin.api.post('/api/auth/invite_user', {
    data: { ...name, email, role },
    headers: { 'x-csrf-token': admin.csrf },
  });
  expect(invite.status(), await invite.text()).toBe(200);
  const token = new URL((await invite.json()).link).searchParams.get('invite');
  const anon = await request.newContext({ baseURL: BASE_URL });
  const reg = await anon.post('/api/auth/registration', { data: { invite: token, password } });
  expect(reg.status(), await reg.text()).toBe(200);
  await anon.dispose();
  return { email, password };
}

/** Sets a property such as `health.disable` through /api/db, as the Feature Flags page will. */
export async function setProperty(admin: ApiSession, name: string, value: string) {
  const res = await admin.api.post('/api/db/properties', {
    data: { name, value },
    headers: { 'x-csrf-token': admin.csrf, prefer: 'resolution=merge-duplicates', 'content-type': 'application/json' },
    params: { on_conflict: 'name' },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
}

export async function deleteProperty(admin: ApiSession, name: string) {
  const res = await admin.api.delete(`/api/db/properties?name=eq.${encodeURIComponent(name)}`, {
    headers: { 'x-csrf-token': admin.csrf },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
}
