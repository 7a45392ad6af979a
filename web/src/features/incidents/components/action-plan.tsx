import { useMemo, useState } from 'react';
import { Button, makeStyles, Switch, tokens } from '@fluentui/react-components';
import { Add20Regular, Lightbulb24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../components/empty-state';
import type { Hypothesis, Incident, PersonRef } from '../api';
import type { Comment } from '../work-api';
import { HypothesisDialog } from './hypothesis-dialog';
import { HypothesisNode } from './hypothesis-node';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, paddingTop: tokens.spacingVerticalM },
  toolbar: { display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: tokens.spacingHorizontalM, flexWrap: 'wrap' },
  tree: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, listStyle: 'none', margin: 0, padding: 0 },
});

export interface ActionPlanProps {
  incident: Incident;
  comments: Comment[];
  canWrite: boolean;
  currentUser: PersonRef;
  /** `?comments=true`: every hypothesis open with its comments. */
  expandAll: boolean;
  onExpandAll: (on: boolean) => void;
}

/** The Action Plan tab: the hypothesis tree, root → factor → solution. */
export function ActionPlan({ incident, comments, canWrite, currentUser, expandAll, onExpandAll }: ActionPlanProps) {
  const s = useStyles();
  const [adding, setAdding] = useState(false);
  const { roots, childrenOf } = useMemo(() => {
    const byParent = new Map<string, Hypothesis[]>();
    for (const h of incident.hypotheses) {
      if (!h.parent_id) continue;
      byParent.set(h.parent_id, [...(byParent.get(h.parent_id) ?? []), h]);
    }
    return { roots: incident.hypotheses.filter((h) => !h.parent_id), childrenOf: (id: string) => byParent.get(id) ?? [] };
  }, [incident.hypotheses]);

  return (
    <div className={s.root}>
      <div className={s.toolbar}>
        <Switch label="Expand all" checked={expandAll} onChange={(_, d) => onExpandAll(d.checked)} />
        {canWrite && (
          <Button icon={<Add20Regular />} onClick={() => setAdding(true)}>Add hypothesis</Button>
        )}
      </div>
      {roots.length ? (
        <ul className={s.tree} aria-label="Hypotheses">
          {roots.map((h) => (
            <HypothesisNode
              key={h.id}
              hypothesis={h}
              incident={incident}
              childrenOf={childrenOf}
              comments={comments}
              canWrite={canWrite}
              currentUser={currentUser}
              expandAll={expandAll}
            />
          ))}
        </ul>
      ) : (
        <EmptyState icon={<Lightbulb24Regular />} title="No hypotheses yet" description="Add a root hypothesis, then the factors behind it and their solutions." />
      )}
      {adding && <HypothesisDialog incidentId={incident.id} currentUserId={currentUser.id} type="root" onClose={() => setAdding(false)} />}
    </div>
  );
}
