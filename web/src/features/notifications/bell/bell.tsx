import { lazy, Suspense, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, makeStyles, tokens, Tooltip } from '@fluentui/react-components';
import { Alert20Regular } from '@fluentui/react-icons';
import { useSession } from '../../../app/session-context';
import { api, contentRangeTotal } from '../../../lib/api-client';
import { readLastSeen, writeLastSeen } from './last-seen';

const BellPopover = lazy(() => import('./bell-popover').then((m) => ({ default: m.BellPopover })));

const useStyles = makeStyles({
  wrap: { position: 'relative', display: 'inline-flex' },
  badge: {
    position: 'absolute', top: '0', right: '0', minWidth: '16px', height: '16px', padding: '0 4px', boxSizing: 'border-box',
    borderRadius: tokens.borderRadiusCircular, backgroundColor: tokens.colorPaletteRedBackground3, color: tokens.colorNeutralForegroundOnBrand,
    fontSize: tokens.fontSizeBase100, lineHeight: '16px', textAlign: 'center', pointerEvents: 'none',
  },
});

/** Errors written after `since` (a count read from Content-Range: no rows travel). */
export function useErrorsSince(since: string, enabled: boolean) {
  return useQuery({
    // under ['db', 'notification_send_history']: a new send refetches it (live-socket.ts)
    queryKey: ['db', 'notification_send_history', 'bell', since] as const,
    enabled,
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      await api.get('/api/db/notification_send_history', {
        query: { select: 'id', status: 'eq.error', created_at: `gt.${since}`, limit: '1' },
        headers: { prefer: 'count=exact' },
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return total ?? 0;
    },
  });
}

/**
 * The top bar's bell: errors since the list was last opened as a badge, the latest sends in a popover (its code loads
 * on the first click). Hidden where notifications are turned off or not readable.
 */
export function NotificationBell() {
  const s = useStyles();
  const session = useSession();
  const shown = session.enabled('settings.notifications') && session.can('notifications');
  const [since, setSince] = useState(readLastSeen);
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const errors = useErrorsSince(since, shown);
  if (!shown) return null;
  const count = errors.data ?? 0;
  const label = count ? `Notifications, ${count} failed since last seen` : 'Notifications';
  const toggle = () => {
    if (!open) {
      const now = new Date().toISOString();
      writeLastSeen(now);
      setSince(now);
    }
    setOpen(!open);
  };
  return (
    <span className={s.wrap}>
      <Tooltip content={label} relationship="label">
        <Button ref={button} appearance="subtle" icon={<Alert20Regular />} aria-expanded={open} aria-haspopup="dialog" onClick={toggle} />
      </Tooltip>
      {count > 0 && <span className={s.badge} aria-hidden data-testid="notification-bell-badge">{count > 99 ? '99+' : count}</span>}
      {open && (
        <Suspense fallback={null}>
          <BellPopover target={button.current} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </span>
  );
}
