import { Avatar, makeStyles, mergeClasses, Text, tokens } from '@fluentui/react-components';
import { Age } from '../../../components/status/age';
import { parseComment } from '../mentions';
import type { Comment } from '../work-api';

const useStyles = makeStyles({
  list: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, listStyle: 'none', margin: 0, padding: 0 },
  item: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'flex-start' },
  pending: { opacity: 0.6 },
  bubble: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS, minWidth: 0, flex: 1 },
  meta: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'baseline', flexWrap: 'wrap', color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  author: { color: tokens.colorNeutralForeground1, fontWeight: tokens.fontWeightSemibold },
  text: { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' },
  mention: { color: tokens.colorBrandForeground1, fontWeight: tokens.fontWeightSemibold, backgroundColor: tokens.colorBrandBackground2, borderRadius: tokens.borderRadiusSmall, padding: '0 2px' },
  muted: { color: tokens.colorNeutralForeground3 },
});

/** A comment's text with its mentions highlighted. */
export function CommentText({ comment }: { comment: string }) {
  const s = useStyles();
  return (
    <Text className={s.text}>
      {parseComment(comment).map((p, i) =>
        p.kind === 'text' ? (
          <span key={i}>{p.text}</span>
        ) : (
          <span key={i} className={s.mention} data-user-id={p.id}>@{p.name}</span>
        ),
      )}
    </Text>
  );
}

export function CommentList({ comments, hypothesisTitle, empty }: { comments: Comment[]; hypothesisTitle?: (id: string) => string | undefined; empty: string }) {
  const s = useStyles();
  if (!comments.length) return <Text className={s.muted}>{empty}</Text>;
  return (
    <ul className={s.list} aria-label="Comments">
      {comments.map((c) => {
        const author = c.created_by?.name ?? c.external_created_by ?? 'Someone';
        const under = c.hypothesis_id ? hypothesisTitle?.(c.hypothesis_id) : undefined;
        return (
          <li key={c.id} className={mergeClasses(s.item, c.id.startsWith('pending-') && s.pending)} aria-busy={c.id.startsWith('pending-') || undefined}>
            <Avatar size={28} name={author} image={c.created_by?.avatar ? { src: c.created_by.avatar } : undefined} color="colorful" aria-hidden />
            <div className={s.bubble}>
              <span className={s.meta}>
                <span className={s.author}>{author}</span>
                <Age value={c.created_at} />
                {under && <span>on {under}</span>}
              </span>
              <CommentText comment={c.comment} />
            </div>
          </li>
        );
      })}
    </ul>
  );
}
