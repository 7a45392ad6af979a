/** The messages between the graph and its layout worker. */
export interface LayoutRequest {
  seq: number;
  direction: 'TB' | 'LR';
  nodes: { id: string; width: number; height: number }[];
  edges: { id: string; source: string; target: string }[];
}

export interface LayoutResponse {
  seq: number;
  positions: Record<string, { x: number; y: number }>;
  /** How long the layout took in the worker. */
  ms: number;
  /** elk's layered layout for a small graph, the tidy tree for a large one (layout-graph.ts). */
  algorithm?: 'layered' | 'tree';
  error?: string;
}

/** Node boxes as the graph draws them. */
export const NODE_SIZE = { config: { width: 230, height: 56 }, type: { width: 200, height: 44 } } as const;
