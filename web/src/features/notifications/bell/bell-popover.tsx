import { useQuery } from '@tanstack/react-query';
import { Badge, Link, makeStyles, Popover, PopoverSurface, Spinner, Text, tokens } from '@fluentui/react-components';
import { useLocation } from 'wouter';
import { paths } from '../../../app/paths';
import { Age } from '../../../components/status/age';
import { api, errorMessage } from '../../../lib/api-client';
import { resourceKind, statusColor, statusLabel, titleOf, type SendHistoryRow } from '../model';
import { ResourceKindIcon } from '../history/resource-icon';

/** How many of the latest sends the bell lists. */
export const BELL_LIMIT = 8;

const useStyles = makeStyles({
  surface: { width: '380px', maxWidth: 'calc(100vw - 32px)', padding: 0 },
  head: { display: 'flex', justifyContent: 'space-between', alignItems: 'center', padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`, borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}` },
  list: { listStyle: 'none', margin: 0, padding: 0, maxHeight: '420px', overflowY: 'auto' },
  item: { display: 'flex', gap: tokens.spacingHorizontalS, padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`, borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke3}` },
  main: { display: 'flex', flexDirection: 'column', minWidth: 0, flex: 1 },
  title: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  sub: { display: 'flex', gap: tokens.spacingHorizontalS, color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, alignItems: 'center' },
  empty: { padding: tokens.spacingHorizontalM, color: tokens.colorNeutralForeground3 },
});

/** The latest sends (live: under ['db', 'notification_send_history']). */
function useLatestSends() {
  return useQuery({
    queryKey: ['db', 'notification_send_history', 'latest', BELL_LIMIT] as const,
    queryFn: ({ signal }) =>
      api.get<SendHistoryRow[]>('/api/db/notification_send_history_summary', {
        query: { select: 'id,status,created_at,source_event,resource,resource_kind,resource_id,body,count,first_observed', order: 'created_at.desc', limit: String(BELL_LIMIT) },
        signal,
      }).then((r) => r ?? []),
  });
}

export interface BellPopoverProps {
  target: HTMLElement | null;
  onClose: () => void;
}

/** The bell's list: the latest sends, each with its status, resource and age; "View all" opens /notifications. */
export function BellPopover({ target, onClose }: BellPopoverProps) {
  const s = useStyles();
  const latest = useLatestSends();
  const [, navigate] = useLocation();
  const go = (href: string) => {
    onClose();
    navigate(href);
  };
  return (
    <Popover open positioning={{ target, position: 'below', align: 'end' }} onOpenChange={(_, d) => !d.open && onClose()} trapFocus>
      <PopoverSurface className={s.surface} aria-label="Latest notifications">
        <div className={s.head}>
          <Text weight="semibold">Notifications</Text>
          <Link href={paths.notifications} onClick={(e) => { e.preventDefault(); go(paths.notifications); }}>View all</Link>
        </div>
        {latest.isLoading ? (
          <div className={s.empty}><Spinner size="tiny" label="Loading…" /></div>
        ) : latest.error ? (
          <div className={s.empty} role="alert">{errorMessage(latest.error)}</div>
        ) : !latest.data?.length ? (
          <div className={s.empty}>No notifications have been sent</div>
        ) : (
          <ul className={s.list}>
            {latest.data.map((r) => (
              <li key={r.id} className={s.item}>
                <ResourceKindIcon kind={resourceKind(r)} />
                <div className={s.main}>
                  <Link className={s.title} href={paths.notifications} onClick={(e) => { e.preventDefault(); go(paths.notifications); }}>
                    {titleOf(r) || r.resource?.name || r.source_event || 'Notification'}
                  </Link>
                  <span className={s.sub}>
                    <Badge size="small" appearance="tint" color={statusColor(r.status)}>{statusLabel(r.status)}</Badge>
                    {r.resource?.name && <span>{r.resource.name}</span>}
                    <Age value={r.created_at} />
                  </span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </PopoverSurface>
    </Popover>
  );
}
