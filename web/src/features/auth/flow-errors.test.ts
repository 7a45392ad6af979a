import { describe, expect, it } from 'vitest';
import type { KratosErrorId, SelfServiceFlow } from '@contracts/identity';
import { ApiError } from '../../lib/api-client';
import { browserTarget, FLOW_ERROR_TOASTS, flowErrorAction, type FlowHere } from './flow-errors';

const origin = 'http://console.test';
const here: FlowHere = { kind: 'settings', location: '/profile-settings?flow=f1', returnTo: null, origin };

function kratos(status: number, id?: KratosErrorId, extra: { redirect_browser_to?: string; details?: Record<string, unknown> } = {}) {
  const err = new ApiError(status, id ?? `http_${status}`, 'x');
  err.body = { error: { id, code: status, status: 'x', message: 'x', details: extra.details }, redirect_browser_to: extra.redirect_browser_to };
  return err;
}

describe('flowErrorAction: the error catalogue of spec 001 §8', () => {
  it('session_aal2_required goes to the second step and comes back here', () => {
    expect(flowErrorAction(kratos(403, 'session_aal2_required'), here)).toEqual({
      type: 'navigate', to: '/login?aal=aal2&return_to=%2Fprofile-settings%3Fflow%3Df1', hard: false,
    });
    // a server redirect elsewhere than /login (enrolment when a second factor is required) wins
    expect(flowErrorAction(kratos(403, 'session_aal2_required', { redirect_browser_to: `${origin}/profile-settings` }), { ...here, location: '/health' }))
      .toEqual({ type: 'navigate', to: '/profile-settings', hard: false });
  });

  it('session_already_available continues to return_to, or home; a foreign return_to goes home', () => {
    const login = { ...here, kind: 'login' as const };
    expect(flowErrorAction(kratos(400, 'session_already_available'), { ...login, returnTo: '/health?x=1' })).toMatchObject({ to: '/health?x=1' });
    expect(flowErrorAction(kratos(400, 'session_already_available'), login)).toMatchObject({ to: '/' });
    expect(flowErrorAction(kratos(400, 'session_already_available'), { ...login, returnTo: '//evil.example' })).toMatchObject({ to: '/' });
  });

  it('session_refresh_required and browser_location_change_required follow redirect_browser_to', () => {
    const refresh = kratos(403, 'session_refresh_required', { redirect_browser_to: `${origin}/login?refresh=true&return_to=%2Fprofile-settings` });
    expect(flowErrorAction(refresh, here)).toEqual({ type: 'navigate', to: '/login?refresh=true&return_to=%2Fprofile-settings', hard: false });
    const change = kratos(422, 'browser_location_change_required', { redirect_browser_to: '/profile-settings?flow=s2' });
    expect(flowErrorAction(change, here)).toEqual({ type: 'navigate', to: '/profile-settings?flow=s2', hard: false });
    // the API's own addresses (a recovery link) and other origins need a full page load
    const api = kratos(422, 'browser_location_change_required', { redirect_browser_to: `${origin}/api/.ory/self-service/logout?token=t` });
    expect(flowErrorAction(api, here)).toMatchObject({ hard: true });
  });

  it('session_inactive signs in again, coming back here (on /login itself: a plain sign-in)', () => {
    expect(flowErrorAction(kratos(401, 'session_inactive'), here)).toEqual({
      type: 'navigate', to: '/login?return_to=%2Fprofile-settings%3Fflow%3Df1', hard: false,
    });
    expect(flowErrorAction(kratos(401, 'session_inactive'), { ...here, kind: 'login', location: '/login?aal=aal2', returnTo: '/logs' }))
      .toEqual({ type: 'navigate', to: '/login?return_to=%2Flogs', hard: false });
  });

  it('toasts then a new flow: return_to refused (dropped), expired (the server\'s new flow), CSRF', () => {
    expect(flowErrorAction(kratos(400, 'self_service_flow_return_to_forbidden'), here)).toEqual({
      type: 'restart', toast: FLOW_ERROR_TOASTS.returnToForbidden, dropReturnTo: true,
    });
    expect(flowErrorAction(kratos(410, 'self_service_flow_expired', { details: { use_flow_id: 'new-1' } }), here)).toEqual({
      type: 'restart', toast: 'Your interaction expired, please fill out the form again.', flowId: 'new-1',
    });
    expect(flowErrorAction(kratos(403, 'security_csrf_violation'), here)).toEqual({
      type: 'restart', toast: 'A security violation was detected, please fill out the form again.',
    });
    expect(flowErrorAction(kratos(403, 'security_identity_mismatch'), here)).toEqual({ type: 'restart' });
  });

  it('410 restarts, 404 (a stale flow id) restarts, 400 with a flow shows it, anything else is the page\'s', () => {
    expect(flowErrorAction(kratos(410), here)).toMatchObject({ type: 'restart' });
    expect(flowErrorAction(kratos(404), here)).toEqual({ type: 'restart' });
    const flow = { id: 'f1', type: 'browser', ui: { action: '', method: 'POST', nodes: [] } } as unknown as SelfServiceFlow;
    const bad = new ApiError(400, 'http_400', 'x');
    bad.body = flow;
    expect(flowErrorAction(bad, here)).toEqual({ type: 'show', flow });
    const down = new ApiError(503, 'http_503', 'down');
    expect(flowErrorAction(down, here)).toEqual({ type: 'unhandled', error: down });
    // a role denial (403 without an error id) is not a session error
    expect(flowErrorAction(new ApiError(403, 'forbidden', 'no'), here)).toMatchObject({ type: 'unhandled' });
  });
});

describe('browserTarget', () => {
  it('keeps own pages in the app and sends other origins and the API to a full page load', () => {
    expect(browserTarget('/health', origin)).toEqual({ to: '/health', hard: false });
    expect(browserTarget(`${origin}/a?b=1#c`, origin)).toEqual({ to: '/a?b=1#c', hard: false });
    expect(browserTarget('https://idp.example/auth', origin)).toEqual({ to: 'https://idp.example/auth', hard: true });
    expect(browserTarget('/api/.ory/self-service/recovery?flow=1', origin)).toMatchObject({ hard: true });
  });
});
