// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import type { SelfServiceFlow } from '@contracts/identity';
import { renderWithProviders } from '../../lib/testing';
import { useFlow } from './flows';

const flow = (id: string): SelfServiceFlow => ({
  id, type: 'browser', expires_at: '', issued_at: '', request_url: '', state: 'choose_method',
  ui: { action: '', method: 'POST', nodes: [], messages: [{ id: 1, text: `flow ${id}`, type: 'info' }] },
});

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function Probe() {
  const { flow: f, error } = useFlow('recovery');
  return <p>{f ? f.ui.messages![0].text : error ? 'error' : 'loading'}</p>;
}

afterEach(() => vi.unstubAllGlobals());

describe('useFlow', () => {
  it('makes a browser flow, shows it and puts its id in the address', async () => {
    const fetch = vi.fn().mockResolvedValue(json(200, flow('11111111-1111-4111-8111-111111111111')));
    vi.stubGlobal('fetch', fetch);
    const r = renderWithProviders(<Probe />, { url: '/recovery?return_to=%2Fhealth' });
    expect(await screen.findByText('flow 11111111-1111-4111-8111-111111111111')).toBeTruthy();
    expect(String(fetch.mock.calls[0][0])).toBe('/api/.ory/self-service/recovery/browser?return_to=%2Fhealth');
    await waitFor(() => expect(r.location()).toBe('/recovery?return_to=%2Fhealth&flow=11111111-1111-4111-8111-111111111111'));
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('an expired flow id loads the new flow the server names', async () => {
    const fetch = vi.fn()
      .mockResolvedValueOnce(json(410, { error: { id: 'self_service_flow_expired', code: 410, status: 'Gone', message: 'x', details: { use_flow_id: 'new-flow' } } }))
      .mockResolvedValueOnce(json(200, flow('new-flow')));
    vi.stubGlobal('fetch', fetch);
    renderWithProviders(<Probe />, { url: '/recovery?flow=old-flow' });
    expect(await screen.findByText('flow new-flow')).toBeTruthy();
    expect(String(fetch.mock.calls[1][0])).toBe('/api/.ory/self-service/recovery/flows?id=new-flow');
  });
});
