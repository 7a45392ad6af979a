import { useEffect, useState } from 'react';
import {
  Button, Dropdown, Input, makeStyles, Menu, MenuItem, MenuList, MenuPopover, MenuTrigger, mergeClasses, Option, Text, tokens, Tooltip,
} from '@fluentui/react-components';
import {
  Add16Regular, ChevronDown20Regular, ChevronRight20Regular, Delete16Regular, Dismiss16Regular, MoreHorizontal20Regular,
  Comment16Regular, DocumentAdd16Regular, ThumbDislike16Regular,
} from '@fluentui/react-icons';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { AppDialog } from '../../../components/app-dialog';
import type { Hypothesis, Incident, PersonRef } from '../api';
import { childType, humanize, HYPOTHESIS_STATUSES } from '../model';
import { useAddComment, useDeleteEvidence, useDeleteHypotheses, useUpdateHypothesis, type Comment } from '../work-api';
import { AddEvidenceDialog } from './add-evidence-dialog';
import { CommentBox } from './comment-box';
import { CommentList } from './comment-list';
import { EvidenceItem, evidenceTitle } from './evidence-item';
import { HypothesisDialog } from './hypothesis-dialog';
import { HypothesisStatusBadge } from './incident-badges';

/** Spec 000 §4: a title edit is sent after 1 s of quiet, a status change after 200 ms. */
export const TITLE_SAVE_MS = 1_000;
export const STATUS_SAVE_MS = 200;

const TYPE_LABEL: Record<string, string> = { root: 'Root cause', factor: 'Factor', solution: 'Solution' };

const useStyles = makeStyles({
  node: {
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground1,
  },
  disproven: { opacity: 0.75 },
  head: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalS}` },
  kind: {
    fontSize: tokens.fontSizeBase100,
    textTransform: 'uppercase',
    letterSpacing: '0.04em',
    color: tokens.colorNeutralForeground3,
    fontWeight: tokens.fontWeightSemibold,
    whiteSpace: 'nowrap',
    minWidth: '72px',
  },
  title: { flex: 1, minWidth: 0 },
  titleText: { flex: 1, minWidth: 0, fontWeight: tokens.fontWeightSemibold, overflowWrap: 'anywhere' },
  status: { minWidth: '130px' },
  counts: { color: tokens.colorNeutralForeground3, whiteSpace: 'nowrap' },
  body: {
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalM,
    padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM} ${tokens.spacingVerticalM} 44px`,
    borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke3}`,
  },
  sectionTitle: { fontSize: tokens.fontSizeBase200, fontWeight: tokens.fontWeightSemibold, color: tokens.colorNeutralForeground2 },
  evidences: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, listStyle: 'none', margin: 0, padding: 0 },
  evidence: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'flex-start', justifyContent: 'space-between' },
  children: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, listStyle: 'none', margin: 0, padding: 0 },
  muted: { color: tokens.colorNeutralForeground3 },
  actions: { display: 'flex', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
});

export interface HypothesisNodeProps {
  hypothesis: Hypothesis;
  incident: Incident;
  childrenOf: (id: string) => Hypothesis[];
  comments: Comment[];
  canWrite: boolean;
  currentUser: PersonRef;
  expandAll: boolean;
}

/** A value that follows `source` and, once edited, saves itself after `ms` of quiet. */
function useDebouncedSave(source: string, ms: number, save: (v: string) => void, valid: (v: string) => boolean = () => true) {
  const [value, setValue] = useState(source);
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    if (!editing) setValue(source);
  }, [source, editing]);
  useEffect(() => {
    if (!editing) return;
    const t = setTimeout(() => {
      if (value !== source && valid(value)) save(value);
      setEditing(false);
    }, ms);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value, editing]);
  return [value, (v: string) => (setEditing(true), setValue(v))] as const;
}

/** All ids under a hypothesis (itself included), deepest first: the order they can be deleted in. */
function subtree(id: string, childrenOf: (id: string) => Hypothesis[]): string[] {
  return [...childrenOf(id).flatMap((c) => subtree(c.id, childrenOf)), id];
}

/** One node of the action plan with its evidence, comments and children (spec 000 §4 hypotheses). */
export function HypothesisNode(props: HypothesisNodeProps) {
  const { hypothesis: h, incident, childrenOf, comments, canWrite, currentUser, expandAll } = props;
  const s = useStyles();
  const [open, setOpen] = useState(expandAll || h.type === 'root');
  useEffect(() => setOpen(expandAll || h.type === 'root'), [expandAll, h.type]);
  const update = useUpdateHypothesis(incident.id);
  const remove = useDeleteHypotheses(incident.id);
  const removeEvidence = useDeleteEvidence(incident.id);
  const addComment = useAddComment(incident.id, currentUser);
  const [title, setTitle] = useDebouncedSave(h.title, TITLE_SAVE_MS, (v) => update.mutate({ id: h.id, title: v.trim() }), (v) => !!v.trim());
  const [status, setStatus] = useDebouncedSave(h.status, STATUS_SAVE_MS, (v) => update.mutate({ id: h.id, status: v }));
  const [adding, setAdding] = useState<'child' | 'evidence' | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [commenting, setCommenting] = useState(false);
  const [unlinking, setUnlinking] = useState<string | null>(null);
  const kids = childrenOf(h.id);
  const next = childType(h.type);
  const own = comments.filter((c) => c.hypothesis_id === h.id);
  const bodyId = `hypothesis-${h.id}`;

  return (
    <li className={mergeClasses(s.node, h.status === 'disproven' && s.disproven)} aria-label={`${TYPE_LABEL[h.type] ?? h.type}: ${h.title}`}>
      <div className={s.head}>
        <Button
          appearance="subtle"
          size="small"
          icon={open ? <ChevronDown20Regular /> : <ChevronRight20Regular />}
          aria-expanded={open}
          aria-controls={bodyId}
          aria-label={open ? `Collapse ${h.title}` : `Expand ${h.title}`}
          onClick={() => setOpen((o) => !o)}
        />
        <span className={s.kind}>{TYPE_LABEL[h.type] ?? humanize(h.type)}</span>
        {canWrite ? (
          <Input
            className={s.title}
            appearance="underline"
            aria-label="Hypothesis title"
            value={title}
            onChange={(_, d) => setTitle(d.value)}
          />
        ) : (
          <Text className={s.titleText}>{h.title}</Text>
        )}
        {!open && (h.evidences.length > 0 || own.length > 0 || kids.length > 0) && (
          <Text size={200} className={s.counts}>
            {[
              h.evidences.length && `${h.evidences.length} evidence`,
              own.length && `${own.length} ${own.length === 1 ? 'comment' : 'comments'}`,
              kids.length && `${kids.length} ${next ?? 'item'}${kids.length === 1 ? '' : 's'}`,
            ]
              .filter(Boolean)
              .join(' · ')}
          </Text>
        )}
        {canWrite ? (
          <Dropdown
            className={s.status}
            size="small"
            aria-label={`Status of ${h.title}`}
            value={humanize(status)}
            selectedOptions={[status]}
            onOptionSelect={(_, d) => d.optionValue && setStatus(d.optionValue)}
          >
            {HYPOTHESIS_STATUSES.map((st) => (
              <Option key={st} value={st}>{humanize(st)}</Option>
            ))}
          </Dropdown>
        ) : (
          <HypothesisStatusBadge status={h.status} />
        )}
        {canWrite && (
          <Menu>
            <MenuTrigger disableButtonEnhancement>
              <Tooltip content="More actions" relationship="label">
                <Button appearance="subtle" size="small" icon={<MoreHorizontal20Regular />} aria-label={`Actions for ${h.title}`} />
              </Tooltip>
            </MenuTrigger>
            <MenuPopover>
              <MenuList>
                {next && <MenuItem icon={<Add16Regular />} onClick={() => setAdding('child')}>Add {next}</MenuItem>}
                <MenuItem icon={<DocumentAdd16Regular />} onClick={() => setAdding('evidence')}>Add evidence</MenuItem>
                <MenuItem icon={<ThumbDislike16Regular />} disabled={h.status === 'disproven'} onClick={() => setStatus('disproven')}>
                  Disprove Hypothesis
                </MenuItem>
                <MenuItem icon={<Delete16Regular />} onClick={() => setDeleting(true)}>Delete</MenuItem>
              </MenuList>
            </MenuPopover>
          </Menu>
        )}
      </div>
      {open && (
        <div className={s.body} id={bodyId}>
          <section aria-label={`Evidence of ${h.title}`}>
            <Text as="h4" className={s.sectionTitle} block>Evidence</Text>
            {h.evidences.length ? (
              <ul className={s.evidences}>
                {h.evidences.map((e) => (
                  <li key={e.id} className={s.evidence}>
                    <EvidenceItem evidence={e} />
                    {canWrite && (
                      <Tooltip content="Remove evidence" relationship="label">
                        <Button appearance="subtle" size="small" icon={<Dismiss16Regular />} aria-label={`Remove evidence ${evidenceTitle(e)}`} onClick={() => setUnlinking(e.id)} />
                      </Tooltip>
                    )}
                  </li>
                ))}
              </ul>
            ) : (
              <Text className={s.muted}>No Evidence</Text>
            )}
          </section>
          <section aria-label={`Comments on ${h.title}`}>
            <Text as="h4" className={s.sectionTitle} block>Comments</Text>
            <CommentList comments={own} empty="No comments on this hypothesis." />
            {canWrite && (
              <div style={{ marginTop: tokens.spacingVerticalS }}>
                {commenting ? (
                  <CommentBox
                    hypotheses={[h]}
                    hypothesisId={h.id}
                    autoFocus
                    busy={addComment.isPending}
                    onSend={(hypothesisId, comment) => {
                      addComment.mutate({ hypothesisId, comment });
                      setCommenting(false);
                    }}
                  />
                ) : (
                  <Button size="small" appearance="subtle" icon={<Comment16Regular />} onClick={() => setCommenting(true)}>
                    Add comment
                  </Button>
                )}
              </div>
            )}
          </section>
          {kids.length > 0 && (
            <ul className={s.children} aria-label={`Under ${h.title}`}>
              {kids.map((k) => (
                <HypothesisNode key={k.id} {...props} hypothesis={k} />
              ))}
            </ul>
          )}
        </div>
      )}
      {adding === 'child' && next && (
        <HypothesisDialog
          incidentId={incident.id}
          currentUserId={currentUser.id}
          parent={h}
          type={next}
          onClose={(added) => {
            setAdding(null);
            // show what was just added
            if (added) setOpen(true);
          }}
        />
      )}
      {adding === 'evidence' && (
        <AddEvidenceDialog
          incidentId={incident.id}
          currentUserId={currentUser.id}
          hypothesis={h}
          onClose={(added) => {
            setAdding(null);
            if (added) setOpen(true);
          }}
        />
      )}
      {deleting && (
        <AppDialog
          open
          onOpenChange={(o) => !o && !remove.isPending && setDeleting(false)}
          title="Delete hypothesis"
          size="small"
          actions={
            <>
              <Button appearance="secondary" disabled={remove.isPending} onClick={() => setDeleting(false)}>Cancel</Button>
              <Button
                disabled={remove.isPending || h.status === 'disproven'}
                onClick={() => {
                  setStatus('disproven');
                  setDeleting(false);
                }}
              >
                Disprove
              </Button>
              <Button
                appearance="primary"
                disabledFocusable={remove.isPending}
                onClick={() => remove.mutate(subtree(h.id, childrenOf), { onSettled: () => setDeleting(false) })}
              >
                {remove.isPending ? 'Deleting…' : 'Delete'}
              </Button>
            </>
          }
        >
          <Text>
            Disprove “{h.title}” to keep it on the plan, or delete it
            {kids.length ? ` and the ${kids.length} ${kids.length === 1 ? 'hypothesis' : 'hypotheses'} under it` : ''}, with its comments and evidence.
          </Text>
        </AppDialog>
      )}
      {unlinking && (
        <ConfirmDialog
          open
          title="Remove evidence"
          description="Remove this evidence from the hypothesis? Its entry stays in the changelog."
          confirmLabel="Remove"
          danger
          busy={removeEvidence.isPending}
          onConfirm={() => removeEvidence.mutate(unlinking, { onSettled: () => setUnlinking(null) })}
          onCancel={() => setUnlinking(null)}
        />
      )}
    </li>
  );
}
