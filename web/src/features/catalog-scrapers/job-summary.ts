/** What a scraper run did to one config type (job_history `details.scrape_summary.config_types.<type>`). */
export interface TypeSummary {
  type: string;
  added: number;
  updated: number;
  unchanged: number;
  changes: number;
  deleted: number;
}

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The per-type rows of a run's scrape summary, by type name, and their totals; empty for a run without one. */
export function scrapeSummaryOf(details: unknown): { types: TypeSummary[]; total: Omit<TypeSummary, 'type'> } {
  const byType = isObj(details) && isObj(details.scrape_summary) && isObj(details.scrape_summary.config_types) ? details.scrape_summary.config_types : {};
  const types = Object.entries(byType)
    .filter(([, v]) => isObj(v))
    .map(([type, v]) => {
      const o = v as Record<string, unknown>;
      return { type, added: n(o.added), updated: n(o.updated), unchanged: n(o.unchanged), changes: n(o.changes), deleted: n(o.deleted) };
    })
    .sort((a, b) => a.type.localeCompare(b.type));
  const total = { added: 0, updated: 0, unchanged: 0, changes: 0, deleted: 0 };
  for (const t of types) for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += t[k];
  return { types, total };
}

/** A run's errors as lines (the engine stores strings; some jobs objects with a message). */
export function errorsOf(details: unknown): string[] {
  const errors = isObj(details) ? details.errors : undefined;
  if (errors === undefined || errors === null || errors === '') return [];
  return (Array.isArray(errors) ? errors : [errors]).map((e) =>
    typeof e === 'string' ? e : isObj(e) && typeof e.message === 'string' ? e.message : JSON.stringify(e),
  );
}
