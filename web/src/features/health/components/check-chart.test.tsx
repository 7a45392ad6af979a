// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { CheckChart } from './check-chart';

// the chart itself draws on a canvas; here only what the panel chooses to show matters
vi.mock('./health-chart', () => ({
  HealthChart: ({ data, label }: { data: unknown[][]; label: string }) => <div role="img" aria-label={label} data-buckets={data[0].length} />,
}));

afterEach(cleanup);

const NOW = Date.parse('2026-11-24T12:00:30Z');
const graph = (times: string[]) => ({
  error: null,
  data: {
    duration: 1, runnerName: 'local', bucketSeconds: 60,
    status: times.map((time) => ({ time, duration: 40, passed: 1, failed: 0 })),
    latency: { p95: 40, p97: 40, p99: 40, avg: 40, rolling1h: 0 },
    uptime: { passed: times.length, failed: 0 },
    window: { from: NOW - 3_600_000, to: NOW },
  },
});

describe('CheckChart', () => {
  it('shows the empty state, not an axis, when no result falls in the window', () => {
    render(<CheckChart graph={graph([])} height={180} label="Latency" />);
    expect(screen.getByRole('status').textContent).toMatch(/no results in this time range/i);
    cleanup();
    render(<CheckChart graph={graph(['2026-11-23T08:00:00Z'])} height={180} label="Latency" />);
    expect(screen.getByRole('status').textContent).toMatch(/no results/i);
    expect(screen.queryByRole('img')).toBeNull();
  });

  it('draws one result over every bucket of the window', async () => {
    render(<CheckChart graph={graph(['2026-11-24T11:59:00Z'])} height={180} label="Latency" />);
    const chart = await screen.findByRole('img', { name: 'Latency' });
    expect(chart.getAttribute('data-buckets')).toBe('61');
  });
});
