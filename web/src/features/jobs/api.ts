import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';
import type { TimeRange } from '../../lib/time-range';
import { jobListQuery, type JobFilters, type JobPage } from './model';

/** Under `['db', 'job_history']`: a job's start and end reach open pages as changes to that relation. */
export const jobKeys = {
  all: ['db', 'job_history'] as const,
  list: (filters: JobFilters, range: TimeRange, page: JobPage) => [...jobKeys.all, 'page', filters, range, page] as const,
  names: () => [...jobKeys.all, 'names'] as const,
};

/** `details` as the reference's dialog reads it: errors, a scraper's scrape_summary, a reconciler's summary. */
export const JobDetails = z
  .object({ errors: z.unknown().optional(), scrape_summary: z.unknown().optional(), summary: z.unknown().optional() })
  .passthrough();

/** One row of `job_histories` (spec 001 §3 "Job history"). */
export const JobRow = z.object({
  id: z.string(),
  name: z.string().nullable(),
  agent: z.object({ id: z.string().nullable(), name: z.string().nullable() }).nullable(),
  hostname: z.string().nullable(),
  resource_id: z.string().nullable(),
  resource_type: z.string().nullable(),
  resource_name: z.string().nullable(),
  status: z.string().nullable(),
  time_start: z.string().nullable(),
  time_end: z.string().nullable(),
  duration_millis: z.number().nullable(),
  success_count: z.number().nullable(),
  error_count: z.number().nullable(),
  created_at: z.string(),
  details: JobDetails.nullable(),
});
export type JobRow = z.infer<typeof JobRow>;

/** A page of runs with the exact total (`Prefer: count=exact`). Disabled while the link's filters are not valid. */
export function useJobs(filters: JobFilters, range: TimeRange, page: JobPage, enabled: boolean) {
  return useQuery({
    queryKey: jobKeys.list(filters, range, page),
    enabled,
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/job_histories', {
        // a relative range is resolved at each fetch, so a refetch (live update, Refresh) moves with the clock
        query: jobListQuery(filters, range, page),
        headers: { prefer: 'count=exact' },
        schema: z.array(JobRow),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

/** Every job name, for the Job Name filter (spec 001 §7 `GET /job_history_names?order=name.asc`). */
export function useJobNames() {
  return useQuery({
    queryKey: jobKeys.names(),
    queryFn: ({ signal }) =>
      api.get('/api/db/job_history_names', {
        query: { order: 'name.asc' },
        schema: z.array(z.object({ name: z.string() })),
        signal,
      }).then((rows) => rows.map((r) => r.name)),
  });
}
