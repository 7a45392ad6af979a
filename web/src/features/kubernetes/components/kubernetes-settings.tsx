import type { ReactNode } from 'react';
import { Button, makeStyles, MessageBar, MessageBarBody, MessageBarTitle, Spinner, Text, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import type { KubernetesStatus } from '@contracts/kubernetes';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { Age } from '../../../components/status/age';
import { StatusBadge } from '../../../components/status/status-badge';
import { errorMessage } from '../../../lib/api-client';
import { useKubernetesStatus } from '../api';
import { InvalidObjectsTable, KindsTable } from './kubernetes-tables';

const useStyles = makeStyles({
  stack: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXL, maxWidth: '1200px' },
  card: {
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalM,
    padding: tokens.spacingHorizontalXL,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground1,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
  heading: { margin: 0, display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalM },
  muted: { margin: 0, color: tokens.colorNeutralForeground2 },
  facts: {
    display: 'grid',
    gridTemplateColumns: 'max-content 1fr',
    columnGap: tokens.spacingHorizontalXXL,
    rowGap: tokens.spacingVerticalS,
    margin: 0,
  },
  term: { color: tokens.colorNeutralForeground2 },
  value: { margin: 0, minWidth: 0, overflowWrap: 'anywhere' },
  mono: { fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200 },
  errorText: { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' },
});

function Section({ id, title, badge, description, children }: { id: string; title: string; badge?: ReactNode; description?: ReactNode; children: ReactNode }) {
  const s = useStyles();
  return (
    <section className={s.card} aria-labelledby={id}>
      <Text as="h3" id={id} size={500} weight="semibold" className={s.heading}>
        {title}
        {badge}
      </Text>
      {description && (
        <Text as="p" className={s.muted}>
          {description}
        </Text>
      )}
      {children}
    </section>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  const s = useStyles();
  return (
    <>
      <dt className={s.term}>{term}</dt>
      <dd className={s.value}>{children}</dd>
    </>
  );
}

const SOURCE_LABEL = { kubeconfig: 'KUBECONFIG file', 'in-cluster': 'In-cluster service account' } as const;

function leaderText(leader: NonNullable<KubernetesStatus['leader']>): string {
  if (leader.isLeader) return `This replica (${leader.identity}) is the leader`;
  return leader.holder ? `${leader.holder} (this replica, ${leader.identity}, follows)` : `No leader yet (this replica: ${leader.identity})`;
}

/** The connection card: up or down, where the credentials came from, the API server, the leader, the last error. */
function ConnectionSection({ status }: { status: KubernetesStatus }) {
  const s = useStyles();
  const badge = status.connected ? (
    <StatusBadge status="Connected" color="success" />
  ) : (
    <StatusBadge status="Not connected" color={status.source ? 'danger' : 'subtle'} />
  );
  return (
    <Section
      id="kubernetes-connection"
      title="Cluster connection"
      badge={badge}
      description={
        status.source
          ? undefined
          : 'The console runs without Kubernetes: no KUBECONFIG is set and there are no in-cluster credentials. ' +
            'Custom resources are not watched and kubectl through the console is not available; everything else works.'
      }
    >
      <dl className={s.facts}>
        <Fact term="Source">{status.source ? SOURCE_LABEL[status.source] : 'None'}</Fact>
        <Fact term="API server">{status.server ? <span className={s.mono}>{status.server}</span> : '—'}</Fact>
        <Fact term="Leader">{status.leader ? leaderText(status.leader) : '—'}</Fact>
      </dl>
      {status.lastError && (
        <MessageBar intent="error" role="alert">
          <MessageBarBody>
            <MessageBarTitle>Last error</MessageBarTitle>
            <span className={s.errorText}>{status.lastError}</span>
          </MessageBarBody>
        </MessageBar>
      )}
    </Section>
  );
}

/** Settings → Kubernetes: the cluster connection, the watched kinds and the custom resources that failed validation. */
export function KubernetesSettings() {
  const s = useStyles();
  const status = useKubernetesStatus();
  const data = status.data;

  let body: ReactNode;
  if (status.isLoading) {
    body = <Spinner label="Loading the Kubernetes status…" />;
  } else if (!data) {
    body = (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="The Kubernetes status could not be loaded"
        description={errorMessage(status.error)}
        role="alert"
        actions={<Button onClick={() => void status.refetch()}>Try again</Button>}
      />
    );
  } else {
    const lastSync = data.kinds.map((k) => k.lastSyncAt).filter((v): v is string => !!v).sort().at(-1);
    body = (
      <div className={s.stack}>
        <ConnectionSection status={data} />
        <Section
          id="kubernetes-kinds"
          title="Watched kinds"
          description={
            lastSync ? (
              <>
                Custom resources the console lists and watches, and the rows they became. Last sync <Age value={lastSync} />.
              </>
            ) : (
              'Custom resources the console lists and watches, and the rows they became.'
            )
          }
        >
          <KindsTable kinds={data.kinds} connected={data.connected} />
        </Section>
        <Section
          id="kubernetes-invalid"
          title="Invalid resources"
          description="Custom resources whose spec did not validate: the console skips them and writes the error to their status."
        >
          <InvalidObjectsTable objects={data.invalid} />
        </Section>
      </div>
    );
  }

  return (
    <Page title="Kubernetes" onRefresh={() => void status.refetch()} refreshing={status.isFetching}>
      {/* a failed refetch keeps the last answer on screen, with the error above it */}
      {data && status.error && (
        <MessageBar intent="warning" role="status">
          <MessageBarBody>Showing the last known status: {errorMessage(status.error)}</MessageBarBody>
        </MessageBar>
      )}
      {body}
    </Page>
  );
}
