import { makeStyles, tokens } from '@fluentui/react-components';
import { PlaybookRunsTable } from '../../../components/playbooks/playbook-runs-table';
import { PlaybooksMenu } from '../../../components/playbooks/playbooks-menu';
import { usePlaybookAbilities } from '../../../components/playbooks/abilities';
import type { PanelContext } from './panel';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, alignItems: 'stretch' },
  menu: { display: 'flex', justifyContent: 'flex-end' },
});

/** Playbooks: those that may run on the component (the Run menu) and its runs, 50 a page. */
export function PlaybooksPanel({ ctx }: { ctx: PanelContext }) {
  const s = useStyles();
  const can = usePlaybookAbilities();
  return (
    <div className={s.root}>
      <div className={s.menu}>
        <PlaybooksMenu resource={{ component_id: ctx.componentId }} canRun={can.canRun} appearance="primary" />
      </div>
      <PlaybookRunsTable filter={{ component_id: ctx.componentId }} label={`Playbook runs of ${ctx.component.name}`} emptyMessage="No playbook has run on this component" />
    </div>
  );
}
