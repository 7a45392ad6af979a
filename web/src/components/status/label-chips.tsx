import { useState } from 'react';
import { Button, makeStyles, Tag, tokens, Tooltip } from '@fluentui/react-components';

const useStyles = makeStyles({
  root: { display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: tokens.spacingHorizontalXS, minWidth: 0 },
  chip: { maxWidth: '260px' },
  key: { color: tokens.colorNeutralForeground3 },
  more: { minWidth: 0, paddingInline: tokens.spacingHorizontalS },
});

export interface LabelChipsProps {
  labels: Record<string, string | number | boolean | null | undefined>;
  /** How many chips show before "+N more" (default 3). */
  limit?: number;
}

/** Key/value labels as chips; the rest collapse into "+N more", which opens them in place. */
export function LabelChips({ labels, limit = 3 }: LabelChipsProps) {
  const s = useStyles();
  const [expanded, setExpanded] = useState(false);
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  const shown = expanded ? entries : entries.slice(0, limit);
  const hidden = entries.length - shown.length;
  return (
    <div className={s.root} role="list" aria-label="Labels">
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
