import { memo } from 'react';
import { makeStyles, mergeClasses, tokens } from '@fluentui/react-components';
import { ansiLine, type AnsiColor, type LogSegment } from '../playbooks/runs/ansi';

/**
 * A log message with its ANSI escapes as styled spans (anser 2.3.5 through the playbook runs' tokeniser): React text
 * only, never HTML, so markup in a line stays text. Colours are theme palette tokens chosen for contrast on the
 * table's background; bright and plain variants share one.
 */
const COLOR: Record<AnsiColor, string> = {
  black: tokens.colorNeutralForeground1, red: tokens.colorPaletteRedForeground1, green: tokens.colorPaletteGreenForeground1,
  yellow: tokens.colorPaletteMarigoldForeground2, blue: tokens.colorPaletteBlueForeground2, magenta: tokens.colorPaletteBerryForeground1,
  cyan: tokens.colorPaletteTealForeground2, white: tokens.colorNeutralForeground3,
  'bright-black': tokens.colorNeutralForeground3, 'bright-red': tokens.colorPaletteRedForeground1,
  'bright-green': tokens.colorPaletteGreenForeground1, 'bright-yellow': tokens.colorPaletteMarigoldForeground2,
  'bright-blue': tokens.colorPaletteBlueForeground2, 'bright-magenta': tokens.colorPaletteBerryForeground1,
  'bright-cyan': tokens.colorPaletteTealForeground2, 'bright-white': tokens.colorNeutralForeground3,
};

const useStyles = makeStyles({
  bold: { fontWeight: tokens.fontWeightBold },
  italic: { fontStyle: 'italic' },
  underline: { textDecoration: 'underline' },
  strike: { textDecoration: 'line-through' },
});

function Segment({ seg }: { seg: LogSegment }) {
  const s = useStyles();
  const cls = mergeClasses(seg.bold && s.bold, seg.italic && s.italic, seg.underline && s.underline, seg.strike && s.strike);
  const style = seg.color ? { color: COLOR[seg.color] } : undefined;
  if (!cls && !style) return <>{seg.text}</>;
  return <span className={cls || undefined} style={style} data-ansi={seg.color ?? 'plain'}>{seg.text}</span>;
}

/** One message; links are left as text here (a row click selects, a stray link would take the page away). */
export const AnsiMessage = memo(function AnsiMessage({ text }: { text: string }) {
  const segments = ansiLine(text.replace(/\r?\n$/, ''));
  return <>{segments.map((seg, i) => <Segment key={i} seg={{ ...seg, href: undefined }} />)}</>;
});

/** The message without its escapes (tooltips, evidence). */
export function plainText(text: string): string {
  return ansiLine(text).map((seg) => seg.text).join('');
}
