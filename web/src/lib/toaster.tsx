import { useCallback, useEffect, useRef, useState } from 'react';
import { makeStyles, mergeClasses, tokens, type ToastIntent } from '@fluentui/react-components';
import {
  CheckmarkCircle20Filled,
  Dismiss16Regular,
  ErrorCircle20Filled,
  Info20Filled,
  Warning20Filled,
} from '@fluentui/react-icons';
import { TOAST_TIMEOUT_MS } from './toast';

type Show = (message: string, intent: ToastIntent) => void;

interface Item {
  id: number;
  message: string;
  intent: ToastIntent;
}

const useStyles = makeStyles({
  stack: {
    position: 'fixed',
    top: '16px',
    right: '16px',
    zIndex: 1000000,
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalS,
    width: '320px',
    maxWidth: 'calc(100vw - 32px)',
    pointerEvents: 'none',
  },
  toast: {
    display: 'flex',
    alignItems: 'flex-start',
    gap: tokens.spacingHorizontalS,
    padding: `${tokens.spacingVerticalM} ${tokens.spacingHorizontalM}`,
    borderRadius: tokens.borderRadiusMedium,
    backgroundColor: tokens.colorNeutralBackground1,
    boxShadow: tokens.shadow16,
    color: tokens.colorNeutralForeground1,
    fontFamily: tokens.fontFamilyBase,
    pointerEvents: 'auto',
    animationName: {
      from: { opacity: 0, transform: 'translateY(-8px)' },
      to: { opacity: 1, transform: 'none' },
    },
    animationDuration: tokens.durationNormal,
    animationTimingFunction: tokens.curveDecelerateMid,
    '@media (prefers-reduced-motion: reduce)': { animationName: 'none' },
  },
  icon: { display: 'flex', flexShrink: 0, paddingTop: '1px', fontSize: '20px' },
  success: { color: tokens.colorStatusSuccessForeground1 },
  error: { color: tokens.colorStatusDangerForeground1 },
  warning: { color: tokens.colorStatusWarningForeground3 },
  info: { color: tokens.colorNeutralForeground2 },
  title: {
    flex: 1,
    minWidth: 0,
    overflowWrap: 'anywhere',
    fontSize: tokens.fontSizeBase300,
    lineHeight: tokens.lineHeightBase300,
    fontWeight: tokens.fontWeightSemibold,
    paddingTop: '1px',
  },
  dismiss: {
    display: 'flex',
    flexShrink: 0,
    padding: '2px',
    border: 'none',
    borderRadius: tokens.borderRadiusSmall,
    background: 'none',
    color: tokens.colorNeutralForeground3,
    cursor: 'pointer',
    ':hover': { color: tokens.colorNeutralForeground1 },
    ':focus-visible': {
      outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`,
    },
  },
});

const ICONS = {
  success: CheckmarkCircle20Filled,
  error: ErrorCircle20Filled,
  warning: Warning20Filled,
  info: Info20Filled,
};

/** One toast: gone after TOAST_TIMEOUT_MS, the clock paused while the pointer or focus is on it. */
function ToastItem({ item, onDismiss }: { item: Item; onDismiss: (id: number) => void }) {
  const s = useStyles();
  const [paused, setPaused] = useState(false);
  const left = useRef(TOAST_TIMEOUT_MS);
  useEffect(() => {
    if (paused) return;
    const started = Date.now();
    const timer = setTimeout(() => onDismiss(item.id), left.current);
    return () => {
      clearTimeout(timer);
      left.current -= Date.now() - started;
    };
  }, [paused, item.id, onDismiss]);
  const Icon = ICONS[item.intent];
  return (
    <div
      className={s.toast}
      data-intent={item.intent}
      onPointerEnter={() => setPaused(true)}
      onPointerLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
    >
      <span className={mergeClasses(s.icon, s[item.intent])} aria-hidden>
        <Icon />
      </span>
      <div className={s.title} data-toast-title="">
        {item.message}
      </div>
      <button type="button" className={s.dismiss} aria-label="Dismiss" onClick={() => onDismiss(item.id)}>
        <Dismiss16Regular aria-hidden />
      </button>
    </div>
  );
}

/**
 * The toasts behind toast.tsx's ToastHost (loaded with the first toast): top right, newest on top, 5 s each.
 * Not Fluent's Toaster: that one is a Tabster focus group trapping Tab, whose two focus sentinels (`<i tabindex=0
 * aria-hidden>`, plus two more around its portal) stay tabbable while focus is outside it, which is the whole time
 * a toast shows, so every toast made axe report aria-hidden-focus. These are plain elements in the page's tab order
 * (the dismiss buttons, after the page: ToastHost is the app's last element), announced through two live regions that exist before any toast
 * is put in them: polite for success and info, assertive for warnings and errors.
 */
export function ToastRenderer({ register }: { register: (show: Show) => () => void }) {
  const s = useStyles();
  const [items, setItems] = useState<Item[]>([]);
  const nextId = useRef(0);
  const dismiss = useCallback((id: number) => setItems((all) => all.filter((t) => t.id !== id)), []);
  // registered after the first commit, so the live regions are in the page before a toast lands in them
  useEffect(
    () => register((message, intent) => setItems((all) => [{ id: ++nextId.current, message, intent }, ...all])),
    [register],
  );
  const urgent = (t: Item) => t.intent === 'error' || t.intent === 'warning';
  // in place, not in a portal: inside the FluentProvider, where the theme's CSS variables are defined
  return (
    <div className={s.stack} data-toaster="">
      <div role="alert" aria-live="assertive" style={{ display: 'contents' }}>
        {items.filter(urgent).map((t) => (
          <ToastItem key={t.id} item={t} onDismiss={dismiss} />
        ))}
      </div>
      <div role="status" aria-live="polite" style={{ display: 'contents' }}>
        {items
          .filter((t) => !urgent(t))
          .map((t) => (
            <ToastItem key={t.id} item={t} onDismiss={dismiss} />
          ))}
      </div>
    </div>
  );
}
