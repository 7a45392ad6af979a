// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../../../lib/testing';
import { LogView } from './log-view';
import { RunSteps } from './run-steps';

describe('LogView', () => {
  it('renders colours as styled text, http links as links, and markup as text', () => {
    const lines = [
      { action_id: 'a', seq: 0, stream: 'stdout', text: '\u001b[31mfailed\u001b[0m see https://example.com/x' },
      { action_id: 'a', seq: 1, stream: 'stderr', text: '<b>not bold</b> javascript://alert(1)' },
    ];
    renderWithProviders(<LogView lines={lines} follow emptyText="none" label="Output of build" />);
    const log = screen.getByRole('log', { name: 'Output of build' });
    expect(log.querySelector('b')).toBeNull();
    expect(log.textContent).toContain('<b>not bold</b>');
    const links = screen.getAllByRole('link');
    expect(links.map((l) => l.getAttribute('href'))).toEqual(['https://example.com/x']);
    expect(links[0].getAttribute('rel')).toContain('noopener');
    const red = screen.getByText('failed');
    expect(red.getAttribute('style')).toContain('color');
    expect(log.querySelector('[data-stream="stderr"]')?.textContent).toContain('not bold');
  });

  it('shows the stored stdout and stderr when no lines were streamed', () => {
    renderWithProviders(<LogView lines={[]} stdout={'one\ntwo\n'} stderr="oops" follow={false} emptyText="none" label="Output" />);
    expect(screen.getByRole('log').textContent).toBe('onetwooops');
  });
});

describe('RunSteps', () => {
  it('a skipped action cannot be opened; a sleeping one shows when it wakes', async () => {
    const user = userEvent.setup();
    const onSelect = vi.fn();
    const now = Date.parse('2026-01-01T00:00:00Z');
    renderWithProviders(
      <RunSteps
        now={now}
        selected="a"
        onSelect={onSelect}
        steps={[
          { id: 'a', name: 'first', status: 'completed', start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:01Z' },
          { id: 'b', name: 'second', status: 'skipped' },
          { id: 'c', name: 'third', status: 'sleeping', scheduled_time: new Date(now + 3 * 60_000).toISOString() },
        ]}
      />,
    );
    await user.click(screen.getByRole('button', { name: /second/ }));
    expect(onSelect).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: /third/ }).textContent).toContain('scheduled in 3m');
    await user.click(screen.getByRole('button', { name: /third/ }));
    expect(onSelect).toHaveBeenCalledWith('c');
    expect(screen.getByRole('button', { name: /first/ }).getAttribute('aria-current')).toBe('true');
  });
});
