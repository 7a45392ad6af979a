import { memo, useEffect, useMemo, useRef } from 'react';
import { makeStyles, mergeClasses, tokens } from '@fluentui/react-components';
import { ansiLine, ansiLines, type AnsiColor, type LogSegment } from '../ansi';
import { lineText, type LogLine } from '../model';

/** More lines than this show the last ones only (the download has all of them). */
export const MAX_SHOWN_LINES = 5_000;

// a dark terminal; every colour keeps at least 4.5:1 against the background (WCAG AA)
const PALETTE: Record<AnsiColor, string> = {
  black: '#9e9e9e', red: '#ff7b72', green: '#7ee787', yellow: '#e3b341', blue: '#79c0ff', magenta: '#d2a8ff',
  cyan: '#76e3ea', white: '#e6edf3', 'bright-black': '#b1bac4', 'bright-red': '#ffa198', 'bright-green': '#aff5b4',
  'bright-yellow': '#f8e3a1', 'bright-blue': '#a5d6ff', 'bright-magenta': '#e2c5ff', 'bright-cyan': '#b3f0ff', 'bright-white': '#ffffff',
};

const useStyles = makeStyles({
  root: {
    margin: 0,
    padding: tokens.spacingHorizontalM,
    backgroundColor: '#0d1117',
    color: '#e6edf3',
    borderRadius: tokens.borderRadiusMedium,
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    lineHeight: tokens.lineHeightBase300,
    overflow: 'auto',
    maxHeight: '480px',
    minHeight: '48px',
  },
  line: { whiteSpace: 'pre-wrap', wordBreak: 'break-all', minHeight: '1em' },
  stderr: { color: '#ffa198' },
  muted: { color: '#b1bac4', fontStyle: 'italic' },
  link: { color: '#79c0ff', textDecoration: 'underline' },
  bold: { fontWeight: tokens.fontWeightBold },
  italic: { fontStyle: 'italic' },
  underline: { textDecoration: 'underline' },
  strike: { textDecoration: 'line-through' },
});

function Segment({ seg }: { seg: LogSegment }) {
  const s = useStyles();
  const cls = mergeClasses(seg.bold && s.bold, seg.italic && s.italic, seg.underline && s.underline, seg.strike && s.strike);
  const style = seg.color ? { color: PALETTE[seg.color] } : undefined;
  if (seg.href) {
    return (
      <a href={seg.href} target="_blank" rel="noopener noreferrer" className={mergeClasses(s.link, cls)}>
        {seg.text}
      </a>
    );
  }
  return cls || style ? <span className={cls || undefined} style={style}>{seg.text}</span> : <>{seg.text}</>;
}

const Line = memo(function Line({ segments, stderr }: { segments: LogSegment[]; stderr?: boolean }) {
  const s = useStyles();
  return (
    <div className={mergeClasses(s.line, stderr && s.stderr)} data-stream={stderr ? 'stderr' : 'stdout'}>
      {segments.map((seg, i) => <Segment key={i} seg={seg} />)}
    </div>
  );
});

export interface LogViewProps {
  /** Streamed lines (stored then live); when empty, the stored output below shows instead. */
  lines: LogLine[];
  stdout?: string;
  stderr?: string;
  /** Follows the end while the action runs. */
  follow: boolean;
  emptyText: string;
  label: string;
}

/** An action's output: ANSI colours as React tokens, http/https links live, stderr tinted; follows the tail. */
export function LogView({ lines, stdout = '', stderr = '', follow, emptyText, label }: LogViewProps) {
  const s = useStyles();
  const ref = useRef<HTMLDivElement>(null);
  const rendered = useMemo(() => {
    if (lines.length) {
      const shown = lines.length > MAX_SHOWN_LINES ? lines.slice(-MAX_SHOWN_LINES) : lines;
      return { hidden: lines.length - shown.length, rows: shown.map((l) => ({ key: `${l.seq}`, segments: ansiLine(lineText(l.text)), stderr: l.stream === 'stderr' })) };
    }
    const out = [
      ...ansiLines(stdout).map((segments, i) => ({ key: `o${i}`, segments, stderr: false })),
      ...ansiLines(stderr).map((segments, i) => ({ key: `e${i}`, segments, stderr: true })),
    ];
    const shown = out.length > MAX_SHOWN_LINES ? out.slice(-MAX_SHOWN_LINES) : out;
    return { hidden: out.length - shown.length, rows: shown };
  }, [lines, stdout, stderr]);

  useEffect(() => {
    const el = ref.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [rendered, follow]);

  return (
    // a scrollable region must be reachable by keyboard (axe scrollable-region-focusable)
    <div ref={ref} className={s.root} role="log" aria-label={label} aria-live="off" tabIndex={0} data-testid="action-log">
      {rendered.hidden > 0 && <div className={s.muted}>{rendered.hidden} earlier lines not shown; Download logs has them all</div>}
      {rendered.rows.length === 0 ? (
        <div className={s.muted}>{emptyText}</div>
      ) : (
        rendered.rows.map((r) => <Line key={r.key} segments={r.segments} stderr={r.stderr} />)
      )}
    </div>
  );
}
