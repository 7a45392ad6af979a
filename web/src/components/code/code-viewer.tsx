import { memo, useCallback, useMemo, useRef, useState, type MouseEvent } from 'react';
import { Button, makeStyles, mergeClasses, Text, tokens, Tooltip } from '@fluentui/react-components';
import { Copy20Regular } from '@fluentui/react-icons';
import { copyToClipboard } from '../../lib/clipboard';
import { useSearchPatch } from '../../lib/url-state';
import { formatLineSelection, highlightLines, parseLineSelection, type CodeLanguage, type Token } from './highlight';

const useStyles = makeStyles({
  root: {
    position: 'relative',
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground2,
    overflow: 'hidden',
    display: 'flex',
    flexDirection: 'column',
    minHeight: 0,
  },
  toolbar: {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'space-between',
    gap: tokens.spacingHorizontalS,
    padding: `${tokens.spacingVerticalXXS} ${tokens.spacingHorizontalS} ${tokens.spacingVerticalXXS} ${tokens.spacingHorizontalM}`,
    borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    backgroundColor: tokens.colorNeutralBackground1,
  },
  meta: { color: tokens.colorNeutralForeground3, textTransform: 'uppercase', letterSpacing: '0.04em' },
  scroll: { overflow: 'auto', minHeight: 0, flex: 1 },
  pre: {
    margin: 0,
    padding: `${tokens.spacingVerticalS} 0`,
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    lineHeight: '20px',
    minWidth: 'fit-content',
  },
  line: { display: 'flex', paddingInlineEnd: tokens.spacingHorizontalL },
  selected: { backgroundColor: tokens.colorBrandBackground2 },
  number: {
    flexShrink: 0,
    width: '48px',
    paddingInlineEnd: tokens.spacingHorizontalM,
    marginInlineEnd: tokens.spacingHorizontalM,
    textAlign: 'end',
    color: tokens.colorNeutralForeground4,
    userSelect: 'none',
    cursor: 'pointer',
    border: 'none',
    background: 'none',
    font: 'inherit',
    borderRight: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke3}`,
    ':hover': { color: tokens.colorNeutralForeground2 },
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`, outlineOffset: '-2px' },
  },
  numberSelected: { color: tokens.colorBrandForeground1, fontWeight: tokens.fontWeightSemibold },
  text: { whiteSpace: 'pre' },
  key: { color: tokens.colorPaletteBerryForeground2 },
  string: { color: tokens.colorPaletteGreenForeground2 },
  number_: { color: tokens.colorPaletteBlueForeground2 },
  keyword: { color: tokens.colorPaletteMarigoldForeground2, fontWeight: tokens.fontWeightSemibold },
  comment: { color: tokens.colorNeutralForeground3, fontStyle: 'italic' },
  punctuation: { color: tokens.colorNeutralForeground3 },
});

type Styles = ReturnType<typeof useStyles>;

function tokenClass(s: Styles, kind: Token['kind']): string | undefined {
  return kind === 'plain' ? undefined : kind === 'number' ? s.number_ : s[kind];
}

const Line = memo(function Line({
  n,
  tokens: line,
  selected,
  onNumberClick,
}: {
  n: number;
  tokens: Token[];
  selected: boolean;
  onNumberClick: (n: number, e: MouseEvent) => void;
}) {
  const s = useStyles();
  return (
    <div className={mergeClasses(s.line, selected && s.selected)} data-line={n}>
      <button
        type="button"
        className={mergeClasses(s.number, selected && s.numberSelected)}
        aria-pressed={selected}
        aria-label={`Line ${n}`}
        onClick={(e) => onNumberClick(n, e)}
      >
        {n}
      </button>
      <span className={s.text}>
        {line.map((t, i) => (
          <span key={i} className={tokenClass(s, t.kind)}>
            {t.text}
          </span>
        ))}
      </span>
    </div>
  );
});

export interface CodeViewerProps {
  /** Text to show, or any value to show as JSON. */
  code: string | object;
  language?: CodeLanguage;
  /**
   * The query parameter holding the selected lines ("3-5,8"; default `selected`, spec 001 catalog Config tab), or
   * false to keep the selection local.
   */
  selectionParam?: string | false;
  /** The scroll area's maximum height (default 480px). */
  maxHeight?: string;
  /** Names the block for assistive technology. */
  label?: string;
}

/**
 * Read-only, highlighted JSON or YAML with line numbers. Clicking a number selects the line (Shift extends,
 * Ctrl/Cmd toggles); the selection lives in the URL so a shared link points at the same lines.
 */
export function CodeViewer({ code, language = 'json', selectionParam = 'selected', maxHeight = '480px', label = 'Code' }: CodeViewerProps) {
  const s = useStyles();
  const text = typeof code === 'string' ? code : JSON.stringify(code, null, 2);
  const lines = useMemo(() => highlightLines(text, language), [text, language]);
  const [params, patch] = useSearchPatch();
  const [local, setLocal] = useState('');
  const raw = selectionParam ? (params.get(selectionParam) ?? '') : local;
  const selected = useMemo(() => parseLineSelection(raw), [raw]);
  const anchor = useRef<number | null>(null);

  const write = (next: Set<number>) => {
    const value = formatLineSelection(next);
    if (selectionParam) patch({ [selectionParam]: value || undefined });
    else setLocal(value);
  };

  const clickRef = useRef<(n: number, e: MouseEvent) => void>(() => {});
  // stable for the memoised lines: a click must not re-render thousands of them
  const onNumberClick = useCallback((n: number, e: MouseEvent) => clickRef.current(n, e), []);
  clickRef.current = (n: number, e: MouseEvent) => {
    if (e.shiftKey && anchor.current !== null) {
      const [a, b] = [Math.min(anchor.current, n), Math.max(anchor.current, n)];
      write(new Set(Array.from({ length: b - a + 1 }, (_, i) => a + i)));
      return;
    }
    anchor.current = n;
    if (e.metaKey || e.ctrlKey) {
      const next = new Set(selected);
      if (next.has(n)) next.delete(n);
      else next.add(n);
      write(next);
    } else {
      write(selected.size === 1 && selected.has(n) ? new Set() : new Set([n]));
    }
  };

  const copy = () => {
    const chosen = text.split('\n').filter((_, i) => selected.has(i + 1));
    void copyToClipboard(selected.size ? chosen.join('\n') : text);
  };

  return (
    <div className={s.root}>
      <div className={s.toolbar}>
        <Text size={100} weight="semibold" className={s.meta}>
          {language} · {lines.length} lines{selected.size ? ` · ${selected.size} selected` : ''}
        </Text>
        <Tooltip content={selected.size ? 'Copy selected lines' : 'Copy'} relationship="label">
          <Button size="small" appearance="subtle" icon={<Copy20Regular />} onClick={copy} />
        </Tooltip>
      </div>
      <div className={s.scroll} style={{ maxHeight }} tabIndex={0} role="region" aria-label={label}>
        <pre className={s.pre}>
          {lines.map((line, i) => (
            <Line key={i} n={i + 1} tokens={line} selected={selected.has(i + 1)} onNumberClick={onNumberClick} />
          ))}
        </pre>
      </div>
    </div>
  );
}
