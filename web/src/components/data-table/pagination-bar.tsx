import { useEffect, useId, useState } from 'react';
import { Button, Input, Label, makeStyles, Text, tokens, Tooltip } from '@fluentui/react-components';
import {
  ChevronDoubleLeft20Regular,
  ChevronDoubleRight20Regular,
  ChevronDown16Regular,
  ChevronLeft20Regular,
  ChevronRight20Regular,
} from '@fluentui/react-icons';

const useStyles = makeStyles({
  root: {
    display: 'flex',
    flexWrap: 'wrap',
    alignItems: 'center',
    justifyContent: 'space-between',
    gap: tokens.spacingHorizontalM,
    padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`,
    borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    backgroundColor: tokens.colorNeutralBackground1,
  },
  group: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  muted: { color: tokens.colorNeutralForeground3 },
  pageInput: { width: '72px' },
  // a native <select> drawn like Fluent's small Select (which is one too, plus about 4 kB gzip of component)
  sizeWrap: { position: 'relative', display: 'inline-flex', alignItems: 'center' },
  sizeSelect: {
    minWidth: '84px',
    height: '24px',
    boxSizing: 'border-box',
    appearance: 'none',
    padding: `0 28px 0 ${tokens.spacingHorizontalS}`,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke1}`,
    borderBottomColor: tokens.colorNeutralStrokeAccessible,
    borderRadius: tokens.borderRadiusMedium,
    backgroundColor: tokens.colorNeutralBackground1,
    color: tokens.colorNeutralForeground1,
    fontFamily: tokens.fontFamilyBase,
    fontSize: tokens.fontSizeBase200,
    cursor: 'pointer',
    ':hover': {
      borderTopColor: tokens.colorNeutralStroke1Hover,
      borderRightColor: tokens.colorNeutralStroke1Hover,
      borderLeftColor: tokens.colorNeutralStroke1Hover,
      borderBottomColor: tokens.colorNeutralStrokeAccessibleHover,
    },
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`, outlineOffset: '1px' },
  },
  sizeChevron: { position: 'absolute', right: tokens.spacingHorizontalSNudge, pointerEvents: 'none', color: tokens.colorNeutralForeground3 },
  nav: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalXXS },
  pageText: { padding: `0 ${tokens.spacingHorizontalS}`, whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' },
});

export interface PaginationBarProps {
  pageIndex: number;
  pageCount: number;
  pageSize: number;
  pageSizes: readonly number[];
  /** Total records, for "Showing 1–50 of 1,234"; leave out when unknown. */
  total?: number;
  onPageChange: (pageIndex: number) => void;
  onPageSizeChange: (pageSize: number) => void;
}

const number = new Intl.NumberFormat();

/** "Page X of Y", go-to-page (min 1), first/previous/next/last and the page-size choices (spec 000 §2). */
export function PaginationBar({
  pageIndex,
  pageCount,
  pageSize,
  pageSizes,
  total,
  onPageChange,
  onPageSizeChange,
}: PaginationBarProps) {
  const s = useStyles();
  const ids = { size: useId(), goTo: useId() };
  const pages = Math.max(1, pageCount);
  const current = Math.min(pageIndex, pages - 1);
  const [goTo, setGoTo] = useState(String(current + 1));
  useEffect(() => setGoTo(String(current + 1)), [current]);

  const go = (index: number) => onPageChange(Math.min(Math.max(0, index), pages - 1));
  const submitGoTo = () => {
    const n = Number(goTo);
    if (Number.isInteger(n) && n >= 1) go(n - 1);
    else setGoTo(String(current + 1));
  };

  const first = total ? current * pageSize + 1 : 0;
  const last = total ? Math.min(total, (current + 1) * pageSize) : 0;

  return (
    <nav className={s.root} aria-label="Pagination">
      <div className={s.group}>
        <Label htmlFor={ids.size} size="small" className={s.muted}>
          Rows per page
        </Label>
        <span className={s.sizeWrap}>
          <select
            id={ids.size}
            className={s.sizeSelect}
            value={String(pageSize)}
            onChange={(e) => onPageSizeChange(Number(e.target.value))}
          >
            {pageSizes.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <ChevronDown16Regular className={s.sizeChevron} aria-hidden />
        </span>
        {total !== undefined && (
          <Text size={200} className={s.muted} aria-live="polite">
            {total ? `Showing ${number.format(first)}–${number.format(last)} of ${number.format(total)}` : '0 results'}
          </Text>
        )}
      </div>
      <div className={s.group}>
        <Label htmlFor={ids.goTo} size="small" className={s.muted}>
          Go to page
        </Label>
        <Input
          id={ids.goTo}
          size="small"
          type="number"
          min={1}
          max={pages}
          className={s.pageInput}
          value={goTo}
          onChange={(_, d) => setGoTo(d.value)}
          onBlur={submitGoTo}
          onKeyDown={(e) => {
            if (e.key === 'Enter') submitGoTo();
          }}
        />
        <div className={s.nav}>
          <Tooltip content="First page" relationship="label">
            <Button size="small" appearance="subtle" icon={<ChevronDoubleLeft20Regular />} disabled={current === 0} onClick={() => go(0)} />
          </Tooltip>
          <Tooltip content="Previous page" relationship="label">
            <Button size="small" appearance="subtle" icon={<ChevronLeft20Regular />} disabled={current === 0} onClick={() => go(current - 1)} />
          </Tooltip>
          <Text size={200} className={s.pageText}>
            Page {number.format(current + 1)} of {number.format(pages)}
          </Text>
          <Tooltip content="Next page" relationship="label">
            <Button
              size="small"
              appearance="subtle"
              icon={<ChevronRight20Regular />}
              disabled={current >= pages - 1}
              onClick={() => go(current + 1)}
            />
          </Tooltip>
          <Tooltip content="Last page" relationship="label">
            <Button
              size="small"
              appearance="subtle"
              icon={<ChevronDoubleRight20Regular />}
              disabled={current >= pages - 1}
              onClick={() => go(pages - 1)}
            />
          </Tooltip>
        </div>
      </div>
    </nav>
  );
}
