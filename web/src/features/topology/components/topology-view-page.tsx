import { makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../components/empty-state';
import { errorMessage } from '../../../lib/api-client';
import { useTopology } from '../api';
import { CARD_SIZES, componentHref } from '../model';
import { TopologyCard } from './topology-card';
import { AgentNamesContext, useAgentNames } from '../../health/agent-names';
import { isLocalAgent } from '../../health/filters';

const useStyles = makeStyles({
  // the shell stays mounted around signed-in routes: the embed covers it, so an iframe shows the card alone
  bare: {
    position: 'fixed', inset: 0, zIndex: 1000, overflow: 'auto', padding: tokens.spacingHorizontalS,
    backgroundColor: tokens.colorNeutralBackground1,
  },
});

/** /view/topology/{id}: one card, no menu, for embedding (same origin). */
export function TopologyViewPage({ id }: { id: string }) {
  const s = useStyles();
  const topology = useTopology({ id, depth: '2', hidden: 'true' });
  const component = topology.data?.components[0];
  const agentNames = useAgentNames(!!component && !isLocalAgent(component.agent_id));
  return (
    <main className={s.bare} aria-label="Component">
      {topology.isError ? (
        <EmptyState icon={<ErrorCircle24Regular />} title="The component could not be loaded" description={errorMessage(topology.error)} role="alert" />
      ) : topology.isLoading ? (
        <Spinner label="Loading…" />
      ) : !component ? (
        <EmptyState icon={<ErrorCircle24Regular />} title="Component not found" />
      ) : (
        <AgentNamesContext.Provider value={agentNames}>
          <TopologyCard component={component} width={CARD_SIZES.extra_large} zoomHref={componentHref(component.id)} />
        </AgentNamesContext.Provider>
      )}
    </main>
  );
}
