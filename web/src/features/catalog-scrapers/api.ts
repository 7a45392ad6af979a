import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, contentRangeTotal } from '../../lib/api-client';
import { JobRow } from '../jobs/api';
import { LIST_SELECT } from '../jobs/model';
import { resourceKeys } from '../settings-resources/api';
import { RESOURCE_DESCRIPTORS } from '../settings-resources/descriptors';

/**
 * A scraper's runs under `['db', 'job_history', …]`: a live job_history change refreshes the Job History tab and a
 * run's progress (and, through live-updates' RELATED, the scrapers' list and detail, whose job columns it changes).
 */
export const scraperKeys = {
  jobs: (id: string, page: number, size: number) => ['db', 'job_history', 'scraper', id, page, size] as const,
  run: (jobId: string) => ['db', 'job_history', 'run', jobId] as const,
};

/**
 * Scrapers are a settings resource (spec 001 §2, moved to /catalog/scrapers): the list, the row, saves, deletes and
 * the spec schema are the settings-resources api over this descriptor. Here: its runs.
 */
export const SCRAPERS = RESOURCE_DESCRIPTORS.config_scrapers;

/** A scraper's run: a `job_histories` row as the Job History page reads it (same schema, same columns). */
export const ScraperJob = JobRow;
export type ScraperJob = JobRow;
const JOB_SELECT = LIST_SELECT;

/** One page of a scraper's runs, newest first, with the exact total. */
export function useScraperJobs(id: string, pageIndex: number, pageSize: number) {
  return useQuery({
    queryKey: scraperKeys.jobs(id, pageIndex, pageSize),
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/job_histories', {
        query: {
          select: JOB_SELECT,
          resource_type: 'eq.config_scraper',
          resource_id: `eq.${id}`,
          order: 'created_at.desc',
          limit: pageSize,
          offset: pageIndex * pageSize,
        },
        headers: { prefer: 'count=exact' },
        schema: z.array(ScraperJob),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
  });
}

/** `POST /api/config/run/{id}`'s answer: the run's job row and its status (RUNNING while it goes on). */
export const RunResult = z.object({ job_history_id: z.string().nullable().optional(), status: z.string() }).loose();
export type RunResult = z.infer<typeof RunResult>;

/** Runs a scraper now (admin and editor; the server checks). */
export function useRunScraper(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.post(`/api/config/run/${encodeURIComponent(id)}`, undefined, { schema: RunResult, timeoutMs: 10 * 60_000 }),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: ['db', 'job_history'] });
      void qc.invalidateQueries({ queryKey: resourceKeys.all(SCRAPERS.table) });
    },
  });
}

/**
 * A run's job row while it is shown. Live job_history changes refresh it; while it is RUNNING it is also read every
 * 2 s, in case a change event is missed on a busy socket.
 */
export function useRun(jobId: string | null | undefined) {
  return useQuery({
    queryKey: scraperKeys.run(jobId ?? ''),
    enabled: !!jobId,
    queryFn: ({ signal }) =>
      api
        .get('/api/db/job_histories', { query: { select: JOB_SELECT, id: `eq.${jobId}` }, schema: z.array(ScraperJob), signal })
        .then((rows) => rows[0] ?? null),
    refetchInterval: (q) => (!q.state.data || q.state.data.status === 'RUNNING' ? 2_000 : false),
  });
}
