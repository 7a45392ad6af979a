import { lazy, Suspense } from 'react';
import { Button, makeStyles, mergeClasses, Spinner, Text, tokens, Tooltip } from '@fluentui/react-components';
import { ArrowClockwise20Regular, QuestionCircle20Regular } from '@fluentui/react-icons';
import { DeferredMenu } from '../../components/menus/deferred-menu';
import { pageHeaderStore } from '../../components/page';
import { useStore } from '../../lib/store';
import { useHostedOrganizations } from '../../features/organizations/context';
import { UserMenu } from './user-menu';

const loadLists = () => import('./shell-menu-lists');
const DocsMenuList = lazy(() => loadLists().then((m) => ({ default: m.DocsMenuList })));
// the bell (its count query and its popover) loads after the first render: the start-up bundle is at its budget
const NotificationBell = lazy(() => import('../../features/notifications/bell/bell').then((m) => ({ default: m.NotificationBell })));
// hosted mode only (AUTH_MODE=oidc with organisations)
const OrganizationSwitcher = lazy(() => import('../../features/organizations/switcher').then((m) => ({ default: m.OrganizationSwitcher })));

const useStyles = makeStyles({
  root: {
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalM,
    height: '56px',
    flexShrink: 0,
    padding: `0 ${tokens.spacingHorizontalL} 0 ${tokens.spacingHorizontalXXL}`,
    backgroundColor: tokens.colorNeutralBackground1,
    borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
  title: { margin: 0, whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' },
  extra: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, flex: 1, minWidth: 0 },
  actions: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalXS },
  spin: {
    animationName: { from: { transform: 'rotate(0deg)' }, to: { transform: 'rotate(360deg)' } },
    animationDuration: '1s',
    animationIterationCount: 'infinite',
    animationTimingFunction: 'linear',
    '@media (prefers-reduced-motion: reduce)': { animationName: 'none' },
  },
});

/** Title, the page's extra content, refresh, notifications, docs and the user menu. */
export function TopBar() {
  const s = useStyles();
  const { title, extra, onRefresh, refreshing } = useStore(pageHeaderStore);
  const hosted = useHostedOrganizations();
  return (
    <header className={s.root}>
      <Text as="h1" size={500} weight="semibold" className={s.title}>
        {title}
      </Text>
      <div className={s.extra}>{extra}</div>
      <div className={s.actions}>
        {onRefresh && (
          <Tooltip content="Refresh" relationship="label">
            <Button
              appearance="subtle"
              icon={<ArrowClockwise20Regular className={mergeClasses(refreshing && s.spin)} />}
              onClick={onRefresh}
              aria-busy={refreshing}
            />
          </Tooltip>
        )}
        {hosted?.active && <Suspense fallback={null}><OrganizationSwitcher /></Suspense>}
        <Suspense fallback={<span style={{ width: '32px' }} />}><NotificationBell /></Suspense>
        <DeferredMenu
          preload={loadLists}
          trigger={(props) => (
            <Tooltip content="Help and documentation" relationship="label">
              <Button {...props} appearance="subtle" icon={<QuestionCircle20Regular />} />
            </Tooltip>
          )}
        >
          <Suspense fallback={<Spinner size="tiny" label="Loading…" />}>
            <DocsMenuList />
          </Suspense>
        </DeferredMenu>
        <UserMenu />
      </div>
    </header>
  );
}
