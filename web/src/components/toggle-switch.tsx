import { makeStyles, mergeClasses, tokens } from '@fluentui/react-components';

const useStyles = makeStyles({
  root: {
    display: 'inline-flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalS,
    padding: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalXS}`,
    border: 'none',
    background: 'none',
    color: tokens.colorNeutralForeground1,
    fontFamily: tokens.fontFamilyBase,
    fontSize: tokens.fontSizeBase300,
    lineHeight: tokens.lineHeightBase300,
    cursor: 'pointer',
    borderRadius: tokens.borderRadiusMedium,
    alignSelf: 'flex-start',
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`, outlineOffset: '1px' },
  },
  track: {
    position: 'relative',
    flexShrink: 0,
    width: '40px',
    height: '20px',
    boxSizing: 'border-box',
    borderRadius: tokens.borderRadiusCircular,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStrokeAccessible}`,
    backgroundColor: tokens.colorTransparentBackground,
    transitionProperty: 'background-color, border-color',
    transitionDuration: tokens.durationNormal,
  },
  trackOn: { backgroundColor: tokens.colorCompoundBrandBackground, border: `${tokens.strokeWidthThin} solid ${tokens.colorCompoundBrandBackground}` },
  thumb: {
    position: 'absolute',
    top: '3px',
    left: '3px',
    width: '12px',
    height: '12px',
    borderRadius: tokens.borderRadiusCircular,
    backgroundColor: tokens.colorNeutralStrokeAccessible,
    transitionProperty: 'transform',
    transitionDuration: tokens.durationNormal,
  },
  thumbOn: { transform: 'translateX(20px)', backgroundColor: tokens.colorNeutralForegroundInverted },
});

export interface ToggleSwitchProps {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  className?: string;
}

/**
 * An on/off switch for pages with a first-load budget (/health): a button with role="switch" (Space and Enter toggle
 * it, its text names it) drawn like Fluent's Switch. Fluent's Switch is built on a hidden checkbox with its own
 * indicator slots, about 2 kB gzip of /health's initial JavaScript (scripts/bench-web.ts); forms keep it.
 */
export function ToggleSwitch({ label, checked, onChange, className }: ToggleSwitchProps) {
  const s = useStyles();
  return (
    <button type="button" role="switch" aria-checked={checked} className={mergeClasses(s.root, className)} onClick={() => onChange(!checked)}>
      <span className={mergeClasses(s.track, checked && s.trackOn)} aria-hidden="true">
        <span className={mergeClasses(s.thumb, checked && s.thumbOn)} />
      </span>
      {label}
    </button>
  );
}
