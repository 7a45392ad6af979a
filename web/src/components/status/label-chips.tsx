import { useState } from 'react';
import { mergeClasses, tokens } from '@fluentui/react-components';
import { makeRowStyles } from '../data-table/row-styles';

const useStyles = makeRowStyles({
  root: {
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalXS,
    minWidth: 0,
  },
  // the "+N more" button sits next to the list, not in it (a list holds list items only)
  list: {
    display: 'flex',
    flexWrap: 'wrap',
    alignItems: 'center',
    gap: tokens.spacingHorizontalXS,
    minWidth: 0,
  },
  // in a table cell the chips stay on one line and clip (the button stays in view), so every row keeps the 35 px
  // rhythm
  singleLine: { flexWrap: 'nowrap', overflow: 'hidden' },
  // looks like Fluent's extra-small outline Tag; a plain <span> because a table renders chips in every row (a Tag
  // is a grid of slots with its own context, a Tooltip a hidden portal per chip)
  // one box that clips its own text (a block in the flex list: its line box of 18 px centres the 16 px text line in
  // the 20 px chip, as the former inline-flex chip centred an inner text span); no inner span per chip
  chip: {
    display: 'block',
    boxSizing: 'border-box',
    height: '20px',
    maxWidth: '260px',
    flexShrink: 0,
    padding: `0 ${tokens.spacingHorizontalSNudge}`,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke1}`,
    borderRadius: tokens.borderRadiusMedium,
    color: tokens.colorNeutralForeground2,
    fontSize: tokens.fontSizeBase200,
    lineHeight: `calc(20px - 2 * ${tokens.strokeWidthThin})`,
    whiteSpace: 'nowrap',
    overflow: 'hidden',
    textOverflow: 'ellipsis',
  },
  // a plain <button> styled as Fluent's small transparent one (cheaper per table row than the component)
  more: {
    flexShrink: 0,
    height: '24px',
    padding: `0 ${tokens.spacingHorizontalS}`,
    border: 'none',
    borderRadius: tokens.borderRadiusMedium,
    background: 'none',
    color: tokens.colorNeutralForeground2,
    font: 'inherit',
    fontSize: tokens.fontSizeBase200,
    fontWeight: tokens.fontWeightSemibold,
    cursor: 'pointer',
    whiteSpace: 'nowrap',
    ':hover': { color: tokens.colorBrandForeground2Hover },
    ':focus-visible': {
      outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`,
    },
  },
  key: { color: tokens.colorNeutralForeground3 },
});

// one collator for every row (String#localeCompare builds a new one per call)
const byKey = new Intl.Collator('en').compare;

export interface LabelChipsProps {
  labels: Record<string, string | number | boolean | null | undefined>;
  /** How many chips show before "+N more" (default 3). */
  limit?: number;
  /** One line, clipped (table cells); "+N more" then opens the full list in place of the cell's chips. */
  singleLine?: boolean;
}

/** Key/value labels as chips; the rest collapse into "+N more", which opens them in place. */
export function LabelChips({ labels, limit = 3, singleLine }: LabelChipsProps) {
  const s = useStyles();
  const [expanded, setExpanded] = useState(false);
  const entries = Object.entries(labels).sort(([a], [b]) => byKey(a, b));
  const shown = expanded ? entries : entries.slice(0, limit);
  const hidden = entries.length - shown.length;
  return (
    <div className={s.root}>
      <div className={mergeClasses(s.list, singleLine && !expanded && s.singleLine)} role="list" aria-label="Labels">
        {shown.map(([k, v]) => {
          const text = v === null || v === undefined || v === '' ? k : `${k}: ${String(v)}`;
          return (
            // the full text on hover (chips clip at 260 px) and as the item's accessible description
            <span key={k} role="listitem" className={s.chip} title={text}>
              {v === null || v === undefined || v === '' ? (
                k
              ) : (
                <>
                  <span className={s.key}>{k}:</span> {String(v)}
                </>
              )}
            </span>
          );
        })}
      </div>
      {hidden > 0 && (
        <button type="button" className={s.more} onClick={() => setExpanded(true)}>
          +{hidden} more
        </button>
      )}
      {expanded && entries.length > limit && (
        <button type="button" className={s.more} onClick={() => setExpanded(false)}>
          Show less
        </button>
      )}
    </div>
  );
}
