import { useState } from 'react';
import { Accordion, AccordionHeader, AccordionItem, AccordionPanel, CounterBadge, makeStyles, Text, tokens } from '@fluentui/react-components';
import type { TopologyComponent } from '@contracts/topology';
import { CatalogPanel, useCatalogCount } from './catalog-panel';
import { ChangesPanel, useChangesCount } from './changes-panel';
import { ChecksPanel, useChecksCount } from './checks-panel';
import { ImpactPanel } from '../impact';
import { DetailsPanel } from './details-panel';
import { IncidentsPanel, useIncidentsCount } from './incidents-panel';
import { InsightsPanel, useInsightsCount } from './insights-panel';
import { PlaybooksPanel } from './playbooks-panel';
import { TeamsPanel, useTeamsCount } from './teams-panel';
import type { PanelContext, SidebarPanel } from './panel';

/** The panels in the reference's order, one line each. */
export const SIDEBAR_PANELS: SidebarPanel[] = [
  { value: 'details', title: 'Details', Body: DetailsPanel },
  { value: 'catalog', title: 'Catalog', useCount: useCatalogCount, Body: CatalogPanel },
  { value: 'incidents', title: 'Incidents', useCount: useIncidentsCount, Body: IncidentsPanel, feature: 'incidents' },
  { value: 'changes', title: 'Changes', useCount: useChangesCount, Body: ChangesPanel },
  { value: 'checks', title: 'Checks', useCount: useChecksCount, Body: ChecksPanel },
  { value: 'playbooks', title: 'Playbooks', Body: PlaybooksPanel },
  { value: 'teams', title: 'Teams', useCount: useTeamsCount, Body: TeamsPanel },
  { value: 'insights', title: 'Insights', useCount: useInsightsCount, Body: InsightsPanel },
  { value: 'impact', title: 'Impact', Body: ({ ctx }) => <ImpactPanel componentId={ctx.componentId} /> },
];

const useStyles = makeStyles({
  root: {
    display: 'flex',
    flexDirection: 'column',
    minWidth: 0,
    gap: tokens.spacingVerticalS,
    padding: tokens.spacingHorizontalM,
    borderLeft: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    backgroundColor: tokens.colorNeutralBackground1,
    overflowY: 'auto',
  },
  header: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
});

export interface TopologySidebarProps {
  component: TopologyComponent | undefined;
  /** admin or editor: may unlink configs (the server enforces it too). */
  canWrite?: boolean;
  /** The incidents feature is on (else the Incidents panel is hidden). */
  incidentsEnabled?: boolean;
  /** The page's refresh rate in ms (0 or absent: off), so the panels refetch with the cards. */
  refetchInterval?: number;
}

function PanelTitle({ panel, ctx }: { panel: SidebarPanel; ctx: PanelContext }) {
  const s = useStyles();
  // a fixed registry: each title always calls the same hook, or none
  const count = panel.useCount?.(ctx);
  return (
    <span className={s.header}>
      {panel.title}
      {count !== undefined && <CounterBadge count={count} showZero size="small" appearance="ghost" color="informative" aria-label={`${count} ${panel.title}`} />}
    </span>
  );
}

/** The selected component's panels, one open at a time (Details first). */
export function TopologySidebar({ component, canWrite = false, incidentsEnabled = true, refetchInterval = 0 }: TopologySidebarProps) {
  const s = useStyles();
  const [open, setOpen] = useState<string>('details');
  if (!component) return null;
  const ctx: PanelContext = { componentId: component.id, component, canWrite, refetchInterval };
  const panels = SIDEBAR_PANELS.filter((p) => p.feature !== 'incidents' || incidentsEnabled);
  return (
    <aside className={s.root} aria-label={`${component.name} details`}>
      <Text weight="semibold" size={400} className={s.name}>{component.name}</Text>
      <Accordion collapsible openItems={open} onToggle={(_, d) => setOpen(d.value === open ? '' : String(d.value))}>
        {panels.map((p) => (
          <AccordionItem key={p.value} value={p.value}>
            <AccordionHeader as="h3" size="small">
              <PanelTitle panel={p} ctx={ctx} />
            </AccordionHeader>
            <AccordionPanel>{open === p.value && <p.Body ctx={ctx} />}</AccordionPanel>
          </AccordionItem>
        ))}
      </Accordion>
    </aside>
  );
}
