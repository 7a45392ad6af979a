// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { incidentKeys } from './api';
import { useAddComment, type Comment } from './work-api';

const existing: Comment = { id: 'c1', comment: 'first', hypothesis_id: 'h1', created_at: '2026-01-01T00:00:00Z', created_by: { id: 'p1', name: 'Ana' } };

/** The server's answers: CSRF token, then the comment POST answered with `status` once `release` is called. */
function stubServer(status: number) {
  let release = () => {};
  const posted = new Promise<void>((r) => (release = r));
  const fetch = vi.fn(async (url: string, _init?: RequestInit) => {
    if (url.startsWith('/api/auth/csrf')) return new Response(JSON.stringify({ csrf_token: 't' }), { headers: { 'content-type': 'application/json' } });
    await posted;
    const body = status < 300 ? '' : JSON.stringify({ code: '23514', message: 'Please add comment details' });
    return new Response(body || null, { status, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetch);
  return { fetch, release: () => release() };
}

function setup() {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } } });
  qc.setQueryData(incidentKeys.comments('i1'), [existing]);
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={qc}>{children}</QueryClientProvider>;
  const { result } = renderHook(() => useAddComment('i1', { id: 'p2', name: 'Bo' }), { wrapper });
  return { qc, result, comments: () => qc.getQueryData<Comment[]>(incidentKeys.comments('i1')) ?? [] };
}

afterEach(() => vi.unstubAllGlobals());

describe('adding a comment', () => {
  it('shows it at once and takes it back when the server refuses', async () => {
    const server = stubServer(400);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { result, comments } = setup();
    act(() => result.current.mutate({ hypothesisId: 'h1', comment: 'second' }));
    await waitFor(() => expect(comments().map((c) => c.comment)).toEqual(['first', 'second']));
    expect(comments()[1]).toMatchObject({ id: expect.stringMatching(/^pending-/), created_by: { name: 'Bo' } });

    server.release();
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(comments()).toEqual([existing]);
    const post = server.fetch.mock.calls.find(([, init]) => init?.method === 'POST')!;
    expect(post[0]).toBe('/api/db/comments');
    expect(JSON.parse(String(post[1]?.body))).toEqual({ created_by: 'p2', incident_id: 'i1', hypothesis_id: 'h1', comment: 'second' });
  });
});
