import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { Button, makeStyles, mergeClasses, Spinner, tokens, Tooltip } from '@fluentui/react-components';
import {
  ChevronDown16Regular,
  ChevronRight16Regular,
  PanelLeftContract20Regular,
  PanelLeftExpand20Regular,
  Settings20Regular,
} from '@fluentui/react-icons';
import { Logo } from '../../components/logo';
import { persistedStore, useStore } from '../../lib/store';
import { DeferredMenu } from '../../components/menus/deferred-menu';
import { useSession } from '../session-context';
import { useLoggingBackendNames } from '../../features/settings-resources/logging-backends-nav';
import { navFor, withLoggingBackends, type NavItem } from './nav-items';

const loadLists = () => import('./shell-menu-lists');
const SettingsMenuList = lazy(() => loadLists().then((m) => ({ default: m.SettingsMenuList })));

/** Persisted across reloads (spec 000: "The collapsed state persists"). */
export const sidebarCollapsedStore = persistedStore('sidebar-collapsed', false);

/** Under this window width the sidebar collapses when the user clicks outside it. */
export const AUTO_COLLAPSE_WIDTH = 1024;

const useStyles = makeStyles({
  root: {
    display: 'flex',
    flexDirection: 'column',
    width: '240px',
    flexShrink: 0,
    height: '100vh',
    position: 'sticky',
    top: 0,
    backgroundColor: tokens.colorNeutralBackground3,
    borderRight: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    transitionProperty: 'width',
    transitionDuration: tokens.durationNormal,
    transitionTimingFunction: tokens.curveEasyEase,
    overflow: 'hidden',
  },
  collapsed: { width: '56px' },
  brand: {
    display: 'flex',
    alignItems: 'center',
    height: '56px',
    flexShrink: 0,
    paddingLeft: '14px',
    textDecorationLine: 'none',
    color: 'inherit',
  },
  list: {
    listStyleType: 'none',
    margin: 0,
    padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalS}`,
    display: 'flex',
    flexDirection: 'column',
    gap: '2px',
    flex: 1,
    overflowY: 'auto',
    overflowX: 'hidden',
  },
  sublist: {
    listStyleType: 'none',
    margin: 0,
    padding: 0,
    display: 'flex',
    flexDirection: 'column',
    gap: '2px',
  },
  item: {
    position: 'relative',
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalM,
    width: '100%',
    height: '36px',
    boxSizing: 'border-box',
    paddingLeft: '10px',
    paddingRight: tokens.spacingHorizontalS,
    borderRadius: tokens.borderRadiusMedium,
    border: 'none',
    backgroundColor: 'transparent',
    color: tokens.colorNeutralForeground2,
    fontFamily: tokens.fontFamilyBase,
    fontSize: tokens.fontSizeBase300,
    lineHeight: tokens.lineHeightBase300,
    textDecorationLine: 'none',
    whiteSpace: 'nowrap',
    cursor: 'pointer',
    ':hover': { backgroundColor: tokens.colorNeutralBackground3Hover, color: tokens.colorNeutralForeground1 },
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`, outlineOffset: '-2px' },
  },
  subitem: { paddingLeft: '42px', height: '32px' },
  active: {
    backgroundColor: tokens.colorNeutralBackground1,
    color: tokens.colorNeutralForeground1,
    fontWeight: tokens.fontWeightSemibold,
    boxShadow: tokens.shadow2,
    ':hover': { backgroundColor: tokens.colorNeutralBackground1 },
    '::before': {
      content: '""',
      position: 'absolute',
      left: 0,
      top: '9px',
      bottom: '9px',
      width: '3px',
      borderRadius: tokens.borderRadiusCircular,
      backgroundColor: tokens.colorBrandForeground1,
    },
  },
  icon: { display: 'flex', flexShrink: 0, fontSize: '20px' },
  label: { flex: 1, overflow: 'hidden', textOverflow: 'ellipsis', textAlign: 'start' },
  footer: {
    flexShrink: 0,
    padding: tokens.spacingHorizontalS,
    borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
});

const isActive = (location: string, href: string) => location === href || location.startsWith(`${href}/`);

function NavLink({ item, collapsed, sub }: { item: NavItem; collapsed: boolean; sub?: boolean }) {
  const s = useStyles();
  const [location] = useLocation();
  const active = isActive(location, item.href.split('?')[0]);
  const Icon = item.icon;
  const link = (
    <Link
      href={item.href}
      className={mergeClasses(s.item, sub && !collapsed && s.subitem, active && s.active)}
      aria-current={active ? 'page' : undefined}
    >
      {Icon && (
        <span className={s.icon}>
          <Icon aria-hidden />
        </span>
      )}
      {!collapsed && <span className={s.label}>{item.label}</span>}
    </Link>
  );
  return (
    <li>
      {collapsed ? (
        <Tooltip content={item.label} relationship="label" positioning="after">
          {link}
        </Tooltip>
      ) : (
        link
      )}
    </li>
  );
}

function SettingsMenu({ items, collapsed }: { items: NavItem[]; collapsed: boolean }) {
  const s = useStyles();
  const [location] = useLocation();
  const within = items.some((i) => isActive(location, i.href)) || location.startsWith('/settings/');
  const [open, setOpen] = useState(within);
  useEffect(() => {
    if (within) setOpen(true);
  }, [within]);

  if (collapsed) {
    return (
      <li>
        <DeferredMenu
          menuProps={{ positioning: 'after-top' }}
          preload={loadLists}
          trigger={(props) => (
            <Tooltip content="Settings" relationship="label" positioning="after">
              <button {...props} type="button" className={mergeClasses(s.item, within && s.active)}>
                <span className={s.icon}>
                  <Settings20Regular aria-hidden />
                </span>
              </button>
            </Tooltip>
          )}
        >
          <Suspense fallback={<Spinner size="tiny" label="Loading…" />}>
            <SettingsMenuList items={items} />
          </Suspense>
        </DeferredMenu>
      </li>
    );
  }
  return (
    <li>
      <button
        type="button"
        className={s.item}
        aria-expanded={open}
        aria-controls="settings-submenu"
        onClick={() => setOpen((o) => !o)}
      >
        <span className={s.icon}>
          <Settings20Regular aria-hidden />
        </span>
        <span className={s.label}>Settings</span>
        {open ? <ChevronDown16Regular aria-hidden /> : <ChevronRight16Regular aria-hidden />}
      </button>
      {open && (
        <ul id="settings-submenu" className={s.sublist}>
          {items.map((i) => (
            <NavLink key={i.href} item={i} collapsed={false} sub />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The left navigation: entries by permission and feature flag, collapsible, settings submenu. */
export function Sidebar() {
  const s = useStyles();
  const session = useSession();
  const collapsed = useStore(sidebarCollapsedStore);
  const setCollapsed = sidebarCollapsedStore.set;
  const ref = useRef<HTMLElement>(null);
  const nav = navFor(session);
  const { main } = nav;
  const backends = useLoggingBackendNames(nav.settings.some((i) => i.href === '/settings/logging_backends'));
  const settings = withLoggingBackends(nav.settings, backends.data);

  // on narrow windows the open sidebar gets out of the way as soon as the user works elsewhere
  useEffect(() => {
    if (collapsed) return;
    const onPointerDown = (e: PointerEvent) => {
      if (window.innerWidth >= AUTO_COLLAPSE_WIDTH) return;
      const target = e.target as Node | null;
      // menus and tooltips render in portals outside the sidebar; those clicks belong to it
      if (!target || ref.current?.contains(target) || (target as Element).closest?.('[data-portal-node]')) return;
      setCollapsed(true);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [collapsed, setCollapsed]);

  return (
    <nav ref={ref} aria-label="Main" className={mergeClasses(s.root, collapsed && s.collapsed)} data-collapsed={collapsed}>
      <Link href="/" className={s.brand} aria-label="Home">
        <Logo withName={!collapsed} />
      </Link>
      <ul className={s.list}>
        {main.map((item) => (
          <NavLink key={item.href} item={item} collapsed={collapsed} />
        ))}
        {settings.length > 0 && <SettingsMenu items={settings} collapsed={collapsed} />}
      </ul>
      <div className={s.footer}>
        <Tooltip content={collapsed ? 'Expand sidebar' : 'Collapse sidebar'} relationship="label" positioning="after">
          <Button
            appearance="subtle"
            icon={collapsed ? <PanelLeftExpand20Regular /> : <PanelLeftContract20Regular />}
            aria-expanded={!collapsed}
            onClick={() => setCollapsed((c) => !c)}
          />
        </Tooltip>
      </div>
    </nav>
  );
}
