import { formatDuration } from '../../lib/format';
import { pathTo, paths } from '../../app/paths';

/** A send-history row as the pages read it (notification_send_history_summary; the detail adds body_markdown). */
export interface SendHistoryRow {
  id: string;
  notification_id: string | null;
  status: string | null;
  source_event: string | null;
  resource_id: string | null;
  resource_health: string | null;
  resource_status: string | null;
  resource: { id?: string; name?: string; type?: string; icon?: string; health?: string; status?: string } | null;
  resource_kind: string | null;
  resource_type: string | null;
  body: string | null;
  body_markdown?: string | null;
  title?: string | null;
  error: string | null;
  count: number | null;
  first_observed: string | null;
  created_at: string;
  duration_millis: number | null;
  silenced_by: string | null;
  recipient: Record<string, unknown> | null;
}

/** The history page's filters, in the URL as `status` and `resourceType` (comma lists, `!x` excludes). */
export type HistoryFilters = {
  status: string;
  resourceType: string;
};
export const HISTORY_URL_DEFAULTS: HistoryFilters = { status: '', resourceType: '' };
export const HISTORY_PAGE_SIZE = 50;
export const HISTORY_PAGE_SIZES = [25, 50, 100];

/** The statuses offered by the filter, each with the label the table shows. */
export const STATUS_LABELS: Record<string, string> = {
  sent: 'Sent',
  error: 'Error',
  pending: 'Pending',
  cancelled: 'Cancelled',
  'repeat-interval': 'Repeated',
  silenced: 'Silenced',
  skipped: 'Skipped',
  inhibited: 'Inhibited',
  'evaluating-waitfor': 'Waiting',
  sending: 'Sending',
};

/** A status as the table shows it: repeat-interval is "Repeated", an unknown one is title-cased. */
export function statusLabel(status: string | null | undefined): string {
  if (!status) return 'Unknown';
  return STATUS_LABELS[status] ?? status.replace(/[-_]/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}

/** A Fluent badge colour per status. */
export function statusColor(status: string | null | undefined): 'success' | 'danger' | 'warning' | 'informative' | 'subtle' {
  switch (status) {
    case 'sent': return 'success';
    case 'error': return 'danger';
    case 'pending': case 'evaluating-waitfor': case 'sending': return 'warning';
    case 'silenced': case 'repeat-interval': case 'inhibited': return 'informative';
    default: return 'subtle';
  }
}

/** The /api/db query of one page, newest first, as the reference UI asks for it (`<col>.filter` lists). */
export function historyQuery(filters: HistoryFilters, pageIndex: number, pageSize: number): Record<string, string> {
  const q: Record<string, string> = {
    select: '*',
    order: 'created_at.desc',
    limit: String(pageSize),
    offset: String(pageIndex * pageSize),
  };
  if (filters.status) q['status.filter'] = filters.status;
  if (filters.resourceType) q['resource_type.filter'] = filters.resourceType;
  return q;
}

/** Age column: "x{count} over {duration}" when the row stands for several identical sends. */
export function repeatText(row: Pick<SendHistoryRow, 'count' | 'first_observed' | 'created_at'>): string | null {
  if (!row.count || row.count <= 1) return null;
  const from = row.first_observed ? Date.parse(row.first_observed) : NaN;
  const to = Date.parse(row.created_at);
  const span = Number.isFinite(from) && Number.isFinite(to) ? Math.max(0, to - from) : 0;
  return `x${row.count} over ${formatDuration(span)}`;
}

/** The title: the row's own, else the body's first non-empty line without markdown marks. */
export function titleOf(row: Pick<SendHistoryRow, 'title' | 'body'>): string {
  if (row.title) return row.title;
  const line = (row.body ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  return line.replace(/^#+\s*/, '').replace(/[*_`]/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').slice(0, 200);
}

/** Who the send was for: an email, a connection, a URL (masked by the server), else the kind. */
export function recipientText(recipient: Record<string, unknown> | null | undefined): string {
  if (!recipient) return '';
  for (const key of ['email', 'name', 'connection', 'url', 'team', 'person']) {
    const v = recipient[key];
    if (typeof v === 'string' && v) return v;
  }
  return typeof recipient.kind === 'string' ? recipient.kind : '';
}

/** The resource kind of a row: the view's resource_kind, else the event's prefix (check.failed → check). */
export function resourceKind(row: Pick<SendHistoryRow, 'resource_kind' | 'source_event'>): string {
  return row.resource_kind ?? row.source_event?.split('.')[0] ?? '';
}

/** The console page of a row's resource, or null for a kind without one. */
export function resourceHref(kind: string, id: string | null | undefined): string | null {
  if (!id) return null;
  switch (kind) {
    case 'check': return pathTo(paths.health, {}, { checkId: id });
    case 'config': return pathTo(paths.config, { id });
    case 'component': return pathTo(paths.topologyDetail, { id });
    case 'canary': return pathTo(paths.settingsTableItem, { table: 'canaries', id });
    case 'incident': return pathTo(paths.incident, { id });
    default: return null;
  }
}

/** "Silence" for a row's resource: the Add Silence form prefilled with its id by kind (check_id=…). */
export function silenceHref(kind: string, id: string | null | undefined): string | null {
  if (!id || !['check', 'canary', 'component', 'config'].includes(kind)) return null;
  return pathTo(paths.notificationSilenceAdd, {}, { [`${kind}_id`]: id });
}

/** One line per event of event_queue_summary (the view groups by name and event id). */
export interface EventQueueSummaryRow {
  name: string;
  event_id?: string | null;
  pending: number | null;
  failed: number | null;
  average_attempts: number | null;
  first_failure: string | null;
  last_failure: string | null;
  most_common_error: string | null;
}

/** The Event Queue page's row: one per event name. */
export interface EventQueueNameRow {
  name: string;
  pending: number;
  failed: number;
  average_attempts: number;
  first_failure: string | null;
  last_failure: string | null;
  most_common_error: string | null;
}

const earlier = (a: string | null, b: string | null) => (!a ? b : !b ? a : Date.parse(a) <= Date.parse(b) ? a : b);
const later = (a: string | null, b: string | null) => (!a ? b : !b ? a : Date.parse(a) >= Date.parse(b) ? a : b);

/**
 * The per-event rows folded into one per name: counts summed, attempts averaged over the pending events, the first and
 * last failure across them, and the error most failed events of that name share.
 */
export function summariseByName(rows: readonly EventQueueSummaryRow[]): EventQueueNameRow[] {
  const byName = new Map<string, EventQueueNameRow & { attempts: number; errors: Map<string, number> }>();
  for (const r of rows) {
    const pending = r.pending ?? 0;
    const failed = r.failed ?? 0;
    let acc = byName.get(r.name);
    if (!acc) {
      acc = { name: r.name, pending: 0, failed: 0, average_attempts: 0, first_failure: null, last_failure: null, most_common_error: null, attempts: 0, errors: new Map() };
      byName.set(r.name, acc);
    }
    acc.pending += pending;
    acc.failed += failed;
    acc.attempts += (r.average_attempts ?? 0) * pending;
    acc.first_failure = earlier(acc.first_failure, r.first_failure);
    acc.last_failure = later(acc.last_failure, r.last_failure);
    if (r.most_common_error) acc.errors.set(r.most_common_error, (acc.errors.get(r.most_common_error) ?? 0) + Math.max(failed, 1));
  }
  return [...byName.values()]
    .map(({ attempts, errors, ...row }) => {
      let top: string | null = null;
      let topCount = 0;
      for (const [error, n] of errors) if (n > topCount || (n === topCount && top !== null && error < top)) [top, topCount] = [error, n];
      return { ...row, average_attempts: row.pending ? attempts / row.pending : 0, most_common_error: top };
    })
    .sort((a, b) => b.failed - a.failed || b.pending - a.pending || a.name.localeCompare(b.name));
}
