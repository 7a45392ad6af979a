import { makeStyles, tokens } from '@fluentui/react-components';
import { usePlaybookAbilities } from '../../../components/playbooks/abilities';
import { PlaybookRunsTable } from '../../../components/playbooks/playbook-runs-table';
import { PlaybooksMenu } from '../../../components/playbooks/playbooks-menu';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  menu: { display: 'flex', justifyContent: 'flex-end' },
});

/** The Playbooks tab: the Run menu (the playbooks that may run on the item) and its runs, newest first, 50 a page. */
export function PlaybooksTab({ configId }: { configId: string }) {
  const s = useStyles();
  const can = usePlaybookAbilities();
  return (
    <div className={s.root}>
      <div className={s.menu}>
        <PlaybooksMenu resource={{ config_id: configId }} canRun={can.canRun} appearance="primary" />
      </div>
      <PlaybookRunsTable filter={{ config_id: configId }} emptyMessage="No playbook has run on this item" />
    </div>
  );
}
