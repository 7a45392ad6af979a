import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Button, Checkbox, makeStyles, mergeClasses, tokens } from '@fluentui/react-components';
import { ArrowDown16Regular } from '@fluentui/react-icons';
import { useVirtualizer } from '@tanstack/react-virtual';
import { formatDateTime } from '../../lib/format';
import { AnsiMessage, plainText } from './ansi-message';
import { severityLevel, type LogBuffer, type LogLine, type SeverityLevel } from './model';

/** Every row is one line high (long messages are cut, the full text in the tooltip): no per-row measuring. */
const ROW_PX = 32;
const OVERSCAN = 12;
/** Within this many pixels of the end counts as "at the bottom": the tail keeps following. */
const STICK_PX = 40;
const estimateSize = () => ROW_PX;

const useStyles = makeStyles({
  wrap: { position: 'relative', flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' },
  scroller: {
    flex: 1,
    minHeight: '240px',
    overflow: 'auto',
    border: `1px solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusMedium,
    ':focus-visible': { outline: `2px solid ${tokens.colorStrokeFocus2}` },
  },
  table: { width: '100%', tableLayout: 'fixed', borderCollapse: 'collapse', fontSize: tokens.fontSizeBase200 },
  head: {
    position: 'sticky',
    top: 0,
    zIndex: 1,
    backgroundColor: tokens.colorNeutralBackground3,
    textAlign: 'left',
    fontWeight: tokens.fontWeightSemibold,
  },
  th: { padding: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalS}`, borderBottom: `1px solid ${tokens.colorNeutralStroke2}` },
  check: { width: '40px' },
  time: { width: '180px' },
  labels: { width: '28%' },
  row: { height: `${ROW_PX}px`, boxSizing: 'border-box', borderBottom: `1px solid ${tokens.colorNeutralStroke3}` },
  selected: { backgroundColor: tokens.colorNeutralBackground1Selected },
  td: { padding: `0 ${tokens.spacingHorizontalS}`, overflow: 'hidden', whiteSpace: 'nowrap', textOverflow: 'ellipsis' },
  timeCell: { whiteSpace: 'nowrap', color: tokens.colorNeutralForeground2, borderLeft: '3px solid transparent' },
  message: { fontFamily: tokens.fontFamilyMonospace, whiteSpace: 'pre' },
  chips: { display: 'flex', overflow: 'hidden', gap: tokens.spacingHorizontalXXS },
  chip: {
    padding: `0 ${tokens.spacingHorizontalXS}`,
    borderRadius: tokens.borderRadiusSmall,
    backgroundColor: tokens.colorNeutralBackground3,
    color: tokens.colorNeutralForeground2,
    maxWidth: '100%',
    overflow: 'hidden',
    textOverflow: 'ellipsis',
    whiteSpace: 'nowrap',
  },
  spacer: { padding: 0, border: 0 },
  follow: { position: 'absolute', right: tokens.spacingHorizontalL, bottom: tokens.spacingVerticalL, zIndex: 2 },
});

// severity colours: a bar on the time cell, and error/warn messages tinted (theme palette tokens, AA contrast)
const SEVERITY_BAR: Record<SeverityLevel, string> = {
  error: tokens.colorPaletteRedBorderActive,
  warn: tokens.colorPaletteMarigoldBorderActive,
  info: tokens.colorPaletteBlueBorderActive,
  debug: tokens.colorNeutralStroke1,
};
const SEVERITY_TEXT: Partial<Record<SeverityLevel, string>> = {
  error: tokens.colorPaletteRedForeground1,
  warn: tokens.colorPaletteMarigoldForeground2,
};

interface RowProps {
  line: LogLine;
  index: number;
  selected: boolean;
  onToggle: (id: number) => void;
}

const Row = memo(function Row({ line, index, selected, onToggle }: RowProps) {
  const s = useStyles();
  const level = severityLevel(line.severity);
  const labels = Object.entries(line.labels);
  return (
    <tr data-index={index} aria-rowindex={index + 2} data-severity={level ?? ''} className={mergeClasses(s.row, selected && s.selected)} data-testid="log-row">
      <td className={s.td}>
        <Checkbox checked={selected} onChange={() => onToggle(line.id)} aria-label={`Select the line of ${formatDateTime(line.timestamp) || line.timestamp}`} />
      </td>
      <td
        className={mergeClasses(s.td, s.timeCell)}
        style={level ? { borderLeftColor: SEVERITY_BAR[level] } : undefined}
        title={[line.timestamp, line.severity].filter(Boolean).join(' · ')}
      >
        {formatDateTime(line.timestamp) || line.timestamp}
      </td>
      <td className={mergeClasses(s.td, s.message)} title={plainText(line.message)} style={level && SEVERITY_TEXT[level] ? { color: SEVERITY_TEXT[level] } : undefined}>
        <AnsiMessage text={line.message} />
      </td>
      <td className={s.td}>
        <div className={s.chips}>
          {labels.map(([k, v]) => (
            <span key={k} className={s.chip} title={`${k}=${v}`}>{`${k}=${v}`}</span>
          ))}
        </div>
      </td>
    </tr>
  );
});

export interface LogsTableProps {
  buffer: LogBuffer<LogLine>;
  version: number;
  selected: ReadonlySet<number>;
  onSelectedChange: (next: Set<number>) => void;
  /** The live tail is on: new lines follow at the bottom while the user is there. */
  live: boolean;
}

/**
 * The lines, oldest at the top: Time, Message, Labels, virtualised (only the rows in view and a few either side are
 * in the DOM, whatever the count). The view follows the newest line while scrolled to the bottom; scrolling up
 * pauses that, and "Follow new lines" resumes it.
 */
export function LogsTable({ buffer, version, selected, onSelectedChange, live }: LogsTableProps) {
  const s = useStyles();
  const scroller = useRef<HTMLDivElement>(null);
  const getScrollElement = useCallback(() => scroller.current, []);
  const stick = useRef(true);
  const lastTop = useRef(0);
  const [paused, setPaused] = useState(false);
  const count = buffer.size;
  // stable options: a new getItemKey or estimateSize each render makes the virtualiser re-measure and re-render, forever
  const getItemKey = useCallback((i: number) => buffer.at(i).id, [buffer]);
  const virtualizer = useVirtualizer({ count, getScrollElement, estimateSize, overscan: OVERSCAN, getItemKey });

  // a new search starts at the bottom again
  useEffect(() => {
    stick.current = true;
    setPaused(false);
  }, [buffer]);

  // following: after new lines, and after rows were measured (the total height changed), the view stays at the end;
  // set directly (scrollToIndex keeps re-aiming frame after frame while rows measure)
  const total = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!stick.current || !count || !el) return;
    const bottom = el.scrollHeight - el.clientHeight;
    if (el.scrollTop < bottom - 1) {
      el.scrollTop = bottom;
      lastTop.current = el.scrollTop;
    }
  }, [version, count, total]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX;
    // only the user scrolls up: rows measured or added below never pause the tail
    const up = el.scrollTop < lastTop.current - 1;
    lastTop.current = el.scrollTop;
    if (atBottom) stick.current = true;
    else if (up) stick.current = false;
    setPaused(!stick.current);
  };

  const toggle = useCallback(
    (id: number) => {
      const next = new Set(selected);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      onSelectedChange(next);
    },
    [selected, onSelectedChange],
  );
  const all = count > 0 && selected.size >= count;
  const toggleAll = () => onSelectedChange(all ? new Set() : new Set(buffer.toArray().map((l) => l.id)));

  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;

  return (
    <div className={s.wrap}>
      <div ref={scroller} className={s.scroller} onScroll={onScroll} tabIndex={0} role="region" aria-label="Log lines">
        <table className={s.table} aria-rowcount={count + 1}>
          <thead className={s.head}>
            <tr aria-rowindex={1}>
              <th className={mergeClasses(s.th, s.check)}>
                <Checkbox
                  checked={all ? true : selected.size ? 'mixed' : false}
                  onChange={toggleAll}
                  aria-label="Select all lines"
                  disabled={!count}
                />
              </th>
              <th className={mergeClasses(s.th, s.time)}>Time</th>
              <th className={s.th}>Message</th>
              <th className={mergeClasses(s.th, s.labels)}>Labels</th>
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && (
              <tr aria-hidden>
                <td colSpan={4} className={s.spacer} style={{ height: padTop }} />
              </tr>
            )}
            {items.map((v) => {
              const line = buffer.at(v.index);
              return <Row key={line.id} line={line} index={v.index} selected={selected.has(line.id)} onToggle={toggle} />;
            })}
            {padBottom > 0 && (
              <tr aria-hidden>
                <td colSpan={4} className={s.spacer} style={{ height: padBottom }} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {paused && count > 0 && (
        <Button
          className={s.follow}
          appearance="primary"
          size="small"
          icon={<ArrowDown16Regular />}
          onClick={() => {
            stick.current = true;
            setPaused(false);
            const el = scroller.current;
            if (el) el.scrollTop = el.scrollHeight;
          }}
        >
          {live ? 'Follow new lines' : 'Jump to newest'}
        </Button>
      )}
    </div>
  );
}
