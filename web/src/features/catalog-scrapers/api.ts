import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, ApiError, contentRangeTotal } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { JobRow } from '../jobs/api';
import { LIST_SELECT } from '../jobs/model';

/**
 * Query keys under `['db', <relation>]`: a live change of config_scrapers or job_history refreshes the list, the
 * detail, the job history and a run's progress without polling.
 */
export const scraperKeys = {
  all: ['db', 'config_scrapers'] as const,
  list: () => [...scraperKeys.all, 'catalog-list'] as const,
  detail: (id: string) => [...scraperKeys.all, 'catalog-detail', id] as const,
  schema: () => ['schemas', 'scrape_config'] as const,
  jobs: (id: string, page: number, size: number) => ['db', 'job_history', 'scraper', id, page, size] as const,
  run: (jobId: string) => ['db', 'job_history', 'run', jobId] as const,
};

const PersonRef = z.object({ id: z.string(), name: z.string(), avatar: z.string().nullable().optional() });
const text = z.string().nullable().optional();

/** One row of `config_scrapers_with_status` (spec 001 §3 "Settings resource", the scraper's columns). */
export const ScraperRow = z.looseObject({
  id: z.string(),
  name: text,
  namespace: text,
  description: text,
  schedule: text,
  source: text,
  agent_id: text,
  agent: z.object({ id: z.string().nullable(), name: z.string().nullable() }).nullable().optional(),
  labels: z.record(z.string(), z.unknown()).nullable().optional(),
  spec: z.unknown().optional(),
  created_at: text,
  updated_at: text,
  created_by: z.union([PersonRef, z.string()]).nullable().optional(),
  job_status: text,
  job_time_start: text,
  job_created_at: text,
  job_last_failed: text,
  last_runtime: text,
});
export type ScraperRow = z.infer<typeof ScraperRow>;

const SELECT = '*,created_by(id,name,avatar)';
/** Spec 001 §2 settings lists show at most this many; scrapers are few. */
const LIMIT = 500;

/** Live scrapers with their latest job (config_scrapers_with_status), by name. */
export function useScrapers() {
  return useQuery({
    queryKey: scraperKeys.list(),
    queryFn: ({ signal }) =>
      api.get('/api/db/config_scrapers_with_status', {
        query: { select: SELECT, order: 'name.asc', limit: LIMIT },
        schema: z.array(ScraperRow),
        signal,
      }),
  });
}

/** One live scraper with its spec and latest job; `null` when there is none (or it was deleted). */
export function useScraper(id: string | undefined) {
  return useQuery({
    queryKey: scraperKeys.detail(id ?? ''),
    enabled: !!id,
    queryFn: ({ signal }) =>
      api
        .get('/api/db/config_scrapers_with_status', { query: { select: SELECT, id: `eq.${id}` }, schema: z.array(ScraperRow), signal })
        .then((rows) => rows[0] ?? null),
  });
}

/**
 * The ScrapeConfig spec's JSON schema for the Code tab (`GET /api/schemas/scrape_config.schema.json`, built by the
 * server from the zod schema it validates with). While a server has none (404) the editor runs without markers.
 */
export function useScrapeConfigSchema() {
  return useQuery({
    queryKey: scraperKeys.schema(),
    staleTime: Infinity,
    retry: false,
    queryFn: ({ signal }) =>
      api
        .get<Record<string, unknown>>('/api/schemas/scrape_config.schema.json', { signal })
        .catch((err: unknown) => (err instanceof ApiError && err.status === 404 ? null : Promise.reject(err))),
  });
}

/** The body a scraper form posts (the config_scrapers writer's columns). */
export interface ScraperBody {
  name: string;
  namespace?: string;
  labels: Record<string, string>;
  spec: Record<string, unknown>;
}

/**
 * Creates (no id) or updates a scraper through /api/db as the reference UI does: POST with `source: 'UI'` and
 * `created_by`, PATCH `?id=eq.{id}` (a CR-sourced row: the server patches the CR). Answers the row's id.
 */
export function useSaveScraper(id: string | undefined, currentUserId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: ScraperBody): Promise<string> => {
      if (id) {
        const { namespace: _fixed, ...rest } = body;
        await api.patch('/api/db/config_scrapers', rest, { query: { id: `eq.${id}` } });
        return id;
      }
      const rows = await api.post(
        '/api/db/config_scrapers',
        { ...body, source: 'UI', created_by: currentUserId },
        { query: { select: 'id' }, headers: { prefer: 'return=representation' }, schema: z.array(z.object({ id: z.string() })) },
      );
      return rows[0].id;
    },
    onSuccess: (_, body) => {
      toast.success(`${body.name} ${id ? 'updated' : 'created'} successfully`);
      void qc.invalidateQueries({ queryKey: scraperKeys.all });
    },
  });
}

/** Soft delete (spec 001 §4: deleted_at set to now). */
export function useDeleteScraper() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (row: { id: string; name: string }) =>
      api.patch('/api/db/config_scrapers', { deleted_at: new Date().toISOString() }, { query: { id: `eq.${row.id}` } }),
    onSuccess: (_, row) => {
      toast.success(`${row.name} deleted successfully`);
      qc.removeQueries({ queryKey: scraperKeys.detail(row.id) });
      void qc.invalidateQueries({ queryKey: scraperKeys.all });
    },
  });
}

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
      void qc.invalidateQueries({ queryKey: scraperKeys.all });
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
