import type { ComponentType } from 'react';
import type { TopologyComponent } from '@contracts/topology';

/** What every panel gets: the selected component and what the page decided about the viewer. */
export interface PanelContext {
  componentId: string;
  component: TopologyComponent;
  /** admin or editor (the server refuses others anyway). */
  canWrite: boolean;
  /** The page's refresh rate in ms (0: off), so panels refetch with the cards. */
  refetchInterval: number;
}

/** One sidebar panel: the registry in topology-sidebar.tsx lists them, one line each. */
export interface SidebarPanel {
  value: string;
  title: string;
  /** The badge beside the title; undefined while loading or when the panel has no count. */
  useCount?: (ctx: PanelContext) => number | undefined;
  Body: ComponentType<{ ctx: PanelContext }>;
  /** Hidden when a feature is off. */
  feature?: 'incidents';
}
