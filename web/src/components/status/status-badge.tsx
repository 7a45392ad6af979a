import { Badge, shorthands, tokens, type BadgeProps, type GriffelStyle } from '@fluentui/react-components';
import { makeRowStyles } from '../data-table/row-styles';
import { healthColor, incidentStatusColor } from './health';

type BadgeColor = NonNullable<BadgeProps['color']>;
const tint = (background: string, foreground: string, border: string) => ({
  backgroundColor: background, color: foreground, ...shorthands.borderColor(border),
});

/**
 * Fluent's tint Badge (size medium, shape rounded) as plain CSS on a span: the same tokens and box as
 * @fluentui/react-badge's styles, without its per-instance slot and style hooks. StatusBadge sits in every row of the
 * health and settings tables, and a 10,000-row table renders a screenful of new rows per scroll frame (issue 3:
 * no long task over 50 ms while scrolling), so the per-row cost matters; other appearances keep Fluent's Badge.
 */
const tintRoot: GriffelStyle = {
  display: 'inline-flex', boxSizing: 'border-box', alignItems: 'center', justifyContent: 'center', position: 'relative',
  fontFamily: tokens.fontFamilyBase, fontSize: tokens.fontSizeBase200, fontWeight: tokens.fontWeightSemibold,
  lineHeight: tokens.lineHeightBase200, height: '20px', minWidth: '20px', whiteSpace: 'nowrap',
  ...shorthands.padding('0', `calc(${tokens.spacingHorizontalXS} + ${tokens.spacingHorizontalXXS})`),
  ...shorthands.borderRadius(tokens.borderRadiusMedium),
  // the border drawn over the box, as Fluent's (its colour inherited from the root), so it takes no space
  '::after': {
    content: '""', position: 'absolute', top: 0, left: 0, bottom: 0, right: 0,
    ...shorthands.borderStyle('solid'), ...shorthands.borderWidth(tokens.strokeWidthThin),
    ...shorthands.borderColor('inherit'), ...shorthands.borderRadius('inherit'),
  },
};
const TINTS: Record<BadgeColor, GriffelStyle> = {
  brand: tint(tokens.colorBrandBackground2, tokens.colorBrandForeground2, tokens.colorBrandStroke2),
  danger: tint(tokens.colorPaletteRedBackground1, tokens.colorPaletteRedForeground1, tokens.colorPaletteRedBorder1),
  important: tint(tokens.colorNeutralForeground3, tokens.colorNeutralBackground1, tokens.colorTransparentStroke),
  informative: tint(tokens.colorNeutralBackground4, tokens.colorNeutralForeground3, tokens.colorNeutralStroke2),
  severe: tint(tokens.colorPaletteDarkOrangeBackground1, tokens.colorPaletteDarkOrangeForeground1, tokens.colorPaletteDarkOrangeBorder1),
  subtle: tint(tokens.colorNeutralBackground1, tokens.colorNeutralForeground3, tokens.colorNeutralStroke2),
  success: tint(tokens.colorPaletteGreenBackground1, tokens.colorPaletteGreenForeground1, tokens.colorPaletteGreenBorder1),
  warning: tint(tokens.colorPaletteYellowBackground1, tokens.colorPaletteYellowForeground1, tokens.colorPaletteYellowBorder1),
};
// one class per colour holding the box and the colours, so a badge in a table row costs no mergeClasses call
const useTintStyles = makeRowStyles(
  Object.fromEntries(Object.entries(TINTS).map(([c, style]) => [c, { ...tintRoot, ...style }])) as Record<BadgeColor, GriffelStyle>,
);

const HEALTH_BADGE: Record<ReturnType<typeof healthColor>, BadgeProps['color']> = {
  red: 'danger',
  gray: 'subtle',
  orange: 'warning',
  green: 'success',
};

const SEVERITY_BADGE: Record<string, BadgeProps['color']> = {
  info: 'informative',
  low: 'informative',
  warning: 'warning',
  medium: 'warning',
  high: 'severe',
  blocker: 'danger',
  critical: 'danger',
};

export interface StatusBadgeProps {
  /** The text; also picks the colour by the health rules unless `color` is given. */
  status: string;
  color?: BadgeProps['color'];
  appearance?: BadgeProps['appearance'];
}

/** A status word in a pill, coloured like the health indicator (healthy green, warning orange, failing red). */
export function StatusBadge({ status, color, appearance = 'tint' }: StatusBadgeProps) {
  const styles = useTintStyles();
  const c: BadgeColor = color ?? HEALTH_BADGE[healthColor(status)] ?? 'informative';
  if (appearance === 'tint') return <span className={`fui-Badge ${styles[c]}`}>{status}</span>;
  return (
    <Badge appearance={appearance} color={color ?? HEALTH_BADGE[healthColor(status)]} shape="rounded">
      {status}
    </Badge>
  );
}

/** Incident and change severities: info … critical. */
export function SeverityBadge({ severity }: { severity: string }) {
  return (
    <Badge appearance="tint" shape="rounded" color={SEVERITY_BADGE[severity.toLowerCase()] ?? 'subtle'}>
      {severity}
    </Badge>
  );
}

/** Spec 000 §4: open light green, closed gray, every other status blue. */
export function IncidentStatusBadge({ status }: { status: string }) {
  const c = incidentStatusColor(status);
  return (
    <Badge
      shape="rounded"
      appearance={c === 'lightgreen' ? 'tint' : c === 'gray' ? 'tint' : 'filled'}
      color={c === 'lightgreen' ? 'success' : c === 'gray' ? 'subtle' : 'brand'}
    >
      {status}
    </Badge>
  );
}
