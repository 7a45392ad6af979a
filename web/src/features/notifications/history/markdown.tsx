import { Fragment, type ReactNode } from 'react';
import { Lexer, type Token, type Tokens } from 'marked';
import { Link, makeStyles, tokens } from '@fluentui/react-components';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, overflowWrap: 'anywhere', '& p, & ul, & ol, & h1, & h2, & h3, & h4, & pre, & blockquote': { margin: 0 } },
  pre: {
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    whiteSpace: 'pre-wrap',
    backgroundColor: tokens.colorNeutralBackground3,
    padding: tokens.spacingHorizontalS,
    borderRadius: tokens.borderRadiusMedium,
  },
  code: { fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200, backgroundColor: tokens.colorNeutralBackground3 },
  quote: { borderLeft: `3px solid ${tokens.colorNeutralStroke1}`, paddingLeft: tokens.spacingHorizontalM, color: tokens.colorNeutralForeground2 },
});

/** Only web links are followed; anything else (javascript:, data:) shows as its text. */
const safeHref = (href: string) => (/^https?:\/\//i.test(href) || href.startsWith('/') ? href : null);

function inline(list: Token[] | undefined, s: ReturnType<typeof useStyles>): ReactNode {
  return (list ?? []).map((t, i) => <Fragment key={i}>{inlineToken(t, s)}</Fragment>);
}

function inlineToken(t: Token, s: ReturnType<typeof useStyles>): ReactNode {
  switch (t.type) {
    case 'strong': return <strong>{inline((t as Tokens.Strong).tokens, s)}</strong>;
    case 'em': return <em>{inline((t as Tokens.Em).tokens, s)}</em>;
    case 'del': return <del>{inline((t as Tokens.Del).tokens, s)}</del>;
    case 'codespan': return <code className={s.code}>{(t as Tokens.Codespan).text}</code>;
    case 'br': return <br />;
    case 'link': {
      const l = t as Tokens.Link;
      const href = safeHref(l.href);
      return href ? <Link href={href} target="_blank" rel="noreferrer">{inline(l.tokens, s)}</Link> : inline(l.tokens, s);
    }
    case 'image': return (t as Tokens.Image).text;
    case 'text': {
      const x = t as Tokens.Text;
      return x.tokens ? inline(x.tokens, s) : x.text;
    }
    case 'escape': return (t as Tokens.Escape).text;
    // raw HTML is shown as the text it is, never interpreted
    default: return 'raw' in t ? String(t.raw) : '';
  }
}

function block(t: Token, key: number, s: ReturnType<typeof useStyles>): ReactNode {
  switch (t.type) {
    case 'heading': {
      const h = t as Tokens.Heading;
      const Tag = (`h${Math.min(Math.max(h.depth + 1, 2), 4)}`) as 'h2' | 'h3' | 'h4';
      return <Tag key={key}>{inline(h.tokens, s)}</Tag>;
    }
    case 'paragraph': return <p key={key}>{inline((t as Tokens.Paragraph).tokens, s)}</p>;
    case 'code': return <pre key={key} className={s.pre}>{(t as Tokens.Code).text}</pre>;
    case 'blockquote': return <blockquote key={key} className={s.quote}>{(t as Tokens.Blockquote).tokens.map((c, i) => block(c, i, s))}</blockquote>;
    case 'hr': return <hr key={key} />;
    case 'list': {
      const l = t as Tokens.List;
      const items = l.items.map((item, i) => <li key={i}>{item.tokens.map((c, j) => (c.type === 'text' ? <Fragment key={j}>{inlineToken(c, s)}</Fragment> : block(c, j, s)))}</li>);
      return l.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case 'table': {
      const tb = t as Tokens.Table;
      return (
        <table key={key}>
          <thead><tr>{tb.header.map((c, i) => <th key={i}>{inline(c.tokens, s)}</th>)}</tr></thead>
          <tbody>{tb.rows.map((r, i) => <tr key={i}>{r.map((c, j) => <td key={j}>{inline(c.tokens, s)}</td>)}</tr>)}</tbody>
        </table>
      );
    }
    case 'space': return null;
    case 'text': {
      const x = t as Tokens.Text;
      return <p key={key}>{x.tokens ? inline(x.tokens, s) : x.text}</p>;
    }
    // html blocks and anything unknown: their source as text
    default: return 'raw' in t && String(t.raw).trim() ? <p key={key}>{String(t.raw)}</p> : null;
  }
}

/**
 * A notification body's markdown as React elements, through marked's lexer: no HTML string is ever inserted, raw HTML
 * in the body shows as text, and only http(s) or same-origin links are live.
 */
export function Markdown({ text }: { text: string }) {
  const s = useStyles();
  let list: Token[];
  try {
    list = Lexer.lex(text, { gfm: true });
  } catch {
    return <pre className={s.pre}>{text}</pre>;
  }
  return <div className={s.root} data-testid="notification-body">{list.map((t, i) => block(t, i, s))}</div>;
}
