import { useState } from 'react';
import { Link } from 'wouter';
import {
  Accordion,
  AccordionHeader,
  AccordionItem,
  AccordionPanel,
  Breadcrumb,
  BreadcrumbButton,
  BreadcrumbDivider,
  BreadcrumbItem,
  makeStyles,
  Spinner,
  Tab,
  TabList,
  Text,
  tokens,
} from '@fluentui/react-components';
import { ErrorCircle24Regular, Warning24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useSearchPatch } from '../../../lib/url-state';
import { useIncident, type Incident, type PersonRef } from '../api';
import { useComments } from '../work-api';
import { ActionPlan } from './action-plan';
import { Changelog } from './changelog';
import { CommentsPanel } from './comments-panel';
import { DefinitionOfDone } from './definition-of-done';
import { DetailsSection } from './details-section';
import { IncidentStatusBadge, IncidentType, SeverityBadge } from './incident-badges';
import { StatusControls } from './status-controls';
import { TopologyStrip } from './topology-strip';
import { humanize } from '../model';

const useStyles = makeStyles({
  header: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS, margin: `${tokens.spacingVerticalM} 0` },
  heading: { margin: 0, display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
  id: { fontFamily: tokens.fontFamilyMonospace, color: tokens.colorNeutralForeground3, fontWeight: tokens.fontWeightRegular },
  badges: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'center', flexWrap: 'wrap' },
  description: { margin: 0, color: tokens.colorNeutralForeground2, whiteSpace: 'pre-wrap', maxWidth: '900px' },
  layout: { display: 'grid', gridTemplateColumns: 'minmax(0, 1fr) 360px', gap: tokens.spacingHorizontalXL, alignItems: 'start', '@media (max-width: 1100px)': { gridTemplateColumns: 'minmax(0, 1fr)' } },
  main: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, minWidth: 0 },
  side: {
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground1,
    minWidth: 0,
  },
  sectionTitle: { fontWeight: tokens.fontWeightSemibold },
});

export interface IncidentDetailProps {
  id: string;
  /** Write on incident (and its evidences, comments, responders): commanders, responders, editors, admins. */
  canWrite: boolean;
  currentUser: PersonRef;
  incidentsHref: string;
}

function Crumbs({ href, current }: { href: string; current?: string }) {
  return (
    <Breadcrumb aria-label="Breadcrumb" size="medium">
      <BreadcrumbItem>
        <Link href={href} asChild>
          <BreadcrumbButton as="a" href={href}>Incidents</BreadcrumbButton>
        </Link>
      </BreadcrumbItem>
      {current && (
        <>
          <BreadcrumbDivider />
          <BreadcrumbItem>
            <BreadcrumbButton current>{current}</BreadcrumbButton>
          </BreadcrumbItem>
        </>
      )}
    </Breadcrumb>
  );
}

/** /incidents/{id}: header, topology strip, Comments and Action Plan tabs, and the side panel. */
export function IncidentDetail({ id, canWrite, currentUser, incidentsHref }: IncidentDetailProps) {
  const incident = useIncident(id);
  if (incident.isLoading) {
    return (
      <Page title="Incident">
        <Crumbs href={incidentsHref} />
        <Spinner label="Loading incident…" style={{ marginTop: 48 }} />
      </Page>
    );
  }
  if (!incident.data) {
    return (
      <Page title="Incident">
        <Crumbs href={incidentsHref} />
        <EmptyState
          icon={incident.error ? <ErrorCircle24Regular /> : <Warning24Regular />}
          title={incident.error ? 'The incident could not be loaded' : 'Incident not found'}
          description={incident.error ? errorMessage(incident.error) : 'There is no incident with this id.'}
          role={incident.error ? 'alert' : 'status'}
        />
      </Page>
    );
  }
  return (
    <IncidentView
      incident={incident.data}
      canWrite={canWrite}
      currentUser={currentUser}
      incidentsHref={incidentsHref}
      refetch={() => void incident.refetch()}
      refreshing={incident.isFetching}
    />
  );
}

type TabId = 'comments' | 'plan';

function IncidentView({ incident, canWrite, currentUser, incidentsHref, refetch, refreshing }: Omit<IncidentDetailProps, 'id'> & { incident: Incident; refetch: () => void; refreshing: boolean }) {
  const s = useStyles();
  const [params, patch] = useSearchPatch();
  const tab: TabId = params.get('tab') === 'plan' ? 'plan' : 'comments';
  const expandAll = params.get('comments') === 'true';
  const comments = useComments(incident.id);
  const [open, setOpen] = useState<string[]>(['details', 'dod', 'changelog']);

  return (
    <Page
      title={`${incident.incident_id} · ${incident.title}`}
      onRefresh={refetch}
      refreshing={refreshing}
      extra={canWrite && <StatusControls incident={incident} />}
    >
      <Crumbs href={incidentsHref} current={incident.incident_id} />
      <header className={s.header}>
        <Text as="h2" size={600} weight="semibold" className={s.heading}>
          <span className={s.id}>{incident.incident_id}</span>
          {incident.title}
        </Text>
        <div className={s.badges}>
          <IncidentStatusBadge status={incident.status} />
          <SeverityBadge severity={humanize(incident.severity)} />
          <IncidentType type={incident.type} />
        </div>
        {incident.description && <Text as="p" className={s.description}>{incident.description}</Text>}
      </header>
      <TopologyStrip incident={incident} />
      <div className={s.layout}>
        <div className={s.main}>
          <TabList selectedValue={tab} onTabSelect={(_, d) => patch({ tab: d.value === 'plan' ? 'plan' : undefined })} aria-label="Incident views">
            <Tab value="comments">Comments ({comments.data?.length ?? 0})</Tab>
            <Tab value="plan">Action Plan ({incident.hypotheses.length})</Tab>
          </TabList>
          <div role="tabpanel" aria-label={tab === 'plan' ? 'Action Plan' : 'Comments'}>
            {tab === 'comments' ? (
              <CommentsPanel incident={incident} comments={comments} canWrite={canWrite} currentUser={currentUser} />
            ) : (
              <ActionPlan
                incident={incident}
                comments={comments.data ?? []}
                canWrite={canWrite}
                currentUser={currentUser}
                expandAll={expandAll}
                onExpandAll={(on) => patch({ comments: on ? 'true' : undefined })}
              />
            )}
          </div>
        </div>
        <aside className={s.side} aria-label="Incident details">
          <Accordion multiple collapsible openItems={open} onToggle={(_, d) => setOpen(d.openItems as string[])}>
            <AccordionItem value="details">
              <AccordionHeader as="h3"><span className={s.sectionTitle}>Details</span></AccordionHeader>
              <AccordionPanel>
                <DetailsSection incident={incident} canWrite={canWrite} currentUser={currentUser} />
              </AccordionPanel>
            </AccordionItem>
            <AccordionItem value="dod">
              <AccordionHeader as="h3"><span className={s.sectionTitle}>Definition of done</span></AccordionHeader>
              <AccordionPanel>
                <DefinitionOfDone incident={incident} canWrite={canWrite} currentUser={currentUser} />
              </AccordionPanel>
            </AccordionItem>
            <AccordionItem value="changelog">
              <AccordionHeader as="h3"><span className={s.sectionTitle}>Changelog</span></AccordionHeader>
              <AccordionPanel>
                <Changelog incidentId={incident.id} />
              </AccordionPanel>
            </AccordionItem>
          </Accordion>
        </aside>
      </div>
    </Page>
  );
}
