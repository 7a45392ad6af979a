import { useState } from 'react';
import { Button, makeStyles, mergeClasses, Tag, tokens, Tooltip } from '@fluentui/react-components';

const useStyles = makeStyles({
  root: { display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: tokens.spacingHorizontalXS, minWidth: 0 },
  // in a table cell the chips stay on one line and clip, so every row keeps the 35 px rhythm
  singleLine: { flexWrap: 'nowrap', overflow: 'hidden' },
  chip: { maxWidth: '260px', flexShrink: 0 },
  more: { minWidth: 0, paddingInline: tokens.spacingHorizontalS, flexShrink: 0 },
  key: { color: tokens.colorNeutralForeground3 },
});

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
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  const shown = expanded ? entries : entries.slice(0, limit);
  const hidden = entries.length - shown.length;
  return (
    <div className={mergeClasses(s.root, singleLine && !expanded && s.singleLine)} role="list" aria-label="Labels">
      {shown.map(([k, v]) => {
        const text = v === null || v === undefined || v === '' ? k : `${k}: ${String(v)}`;
        return (
          <Tooltip key={k} content={text} relationship="description">
            <Tag role="listitem" size="extra-small" appearance="outline" shape="rounded" className={s.chip}>
              {v === null || v === undefined || v === '' ? (
                k
              ) : (
                <>
                  <span className={s.key}>{k}:</span> {String(v)}
                </>
              )}
            </Tag>
          </Tooltip>
        );
      })}
      {hidden > 0 && (
        <Button size="small" appearance="transparent" className={s.more} onClick={() => setExpanded(true)}>
          +{hidden} more
        </Button>
      )}
      {expanded && entries.length > limit && (
        <Button size="small" appearance="transparent" className={s.more} onClick={() => setExpanded(false)}>
          Show less
        </Button>
      )}
    </div>
  );
}
