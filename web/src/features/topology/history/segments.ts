import { formatDuration } from '../../../lib/format';
import { healthColor, type HealthColor } from '../../../components/status/health';
import type { HistoryResponse } from '../api-extra';

type HistoryBucket = HistoryResponse['buckets'][number];
/** A bucket before the component existed (status null): drawn as the empty track. */
export const NO_DATA = 'no data';

/** A run of equal buckets: drawn as one coloured piece of the strip. */
export interface Segment {
  status: string;
  /** `none`: no data, the strip's track shows through. */
  color: HealthColor | 'none';
  start: number;
  end: number;
  /** Share of the window, 0–1. */
  fraction: number;
}

/**
 * Buckets (each from its start to the next one's, the last to `now`) → segments, neighbours with the same status
 * merged so a quiet week is one piece. Buckets before `from` are clipped to it; a window with no bucket at its start
 * has no data until the first one.
 */
export function bucketsToSegments(buckets: HistoryBucket[], from: number, now: number): Segment[] {
  const span = now - from;
  if (span <= 0) return [];
  const points = buckets
    .map((b) => ({ at: Date.parse(b.start), status: b.status ?? NO_DATA }))
    .filter((p) => Number.isFinite(p.at) && p.at < now)
    .sort((a, b) => a.at - b.at);
  const runs: { status: string; start: number; end: number }[] = [];
  const push = (status: string, start: number, end: number) => {
    if (end <= start) return;
    const last = runs[runs.length - 1];
    if (last && last.status === status && last.end === start) last.end = end;
    else runs.push({ status, start, end });
  };
  if (!points.length || points[0].at > from) push(NO_DATA, from, points.length ? points[0].at : now);
  points.forEach((p, i) => push(p.status, Math.max(p.at, from), i + 1 < points.length ? points[i + 1].at : now));
  return runs.map((r) => ({ ...r, color: r.status === NO_DATA ? 'none' : healthColor(r.status), fraction: (r.end - r.start) / span }));
}

/** "healthy 6d 20h, unhealthy 4h": time spent in each status, longest first, for the strip's accessible name. */
export function summariseSegments(segments: Segment[]): string {
  const total = new Map<string, number>();
  for (const s of segments) total.set(s.status, (total.get(s.status) ?? 0) + (s.end - s.start));
  return [...total.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([status, ms]) => `${status} ${formatDuration(ms)}`)
    .join(', ');
}
