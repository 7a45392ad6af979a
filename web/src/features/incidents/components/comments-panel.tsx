import { makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import type { UseQueryResult } from '@tanstack/react-query';
import { errorMessage } from '../../../lib/api-client';
import type { Incident, PersonRef } from '../api';
import { useAddComment, type Comment } from '../work-api';
import { CommentBox } from './comment-box';
import { CommentList } from './comment-list';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL, paddingTop: tokens.spacingVerticalM },
  error: { color: tokens.colorPaletteRedForeground1 },
});

/** The Comments tab: every comment of the incident, oldest first, and a box to add one under a hypothesis. */
export function CommentsPanel({ incident, comments, canWrite, currentUser }: { incident: Incident; comments: UseQueryResult<Comment[]>; canWrite: boolean; currentUser: PersonRef }) {
  const s = useStyles();
  const add = useAddComment(incident.id, currentUser);
  const titles = new Map(incident.hypotheses.map((h) => [h.id, h.title]));
  return (
    <div className={s.root}>
      {comments.isLoading ? (
        <Spinner size="small" label="Loading comments…" />
      ) : comments.error && !comments.data ? (
        <Text role="alert" className={s.error}>Comments could not be loaded: {errorMessage(comments.error)}</Text>
      ) : (
        <CommentList comments={comments.data ?? []} hypothesisTitle={(id) => titles.get(id)} empty="No comments yet." />
      )}
      {canWrite && (
        <CommentBox
          hypotheses={incident.hypotheses}
          busy={add.isPending}
          onSend={(hypothesisId, comment) => add.mutate({ hypothesisId, comment })}
        />
      )}
    </div>
  );
}
