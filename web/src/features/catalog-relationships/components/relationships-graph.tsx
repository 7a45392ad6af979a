import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  Background,
  Controls,
  getViewportForBounds,
  Handle,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { Button, makeStyles, mergeClasses, Spinner, Text, tokens } from '@fluentui/react-components';
import { useLocation } from 'wouter';
import { HealthIndicator } from '../../../components/status/health-indicator';
import type { RelatedConfig } from '../api';
import { layoutBounds } from '../../../lib/graph-layout/leaf-grid';
import { buildGraph, type GraphNode } from '../graph-model';
import { NODE_SIZE, type LayoutRequest, type LayoutResponse } from '../layout';
import LayoutWorker from '../layout.worker.ts?worker';

const useStyles = makeStyles({
  frame: {
    height: '70vh',
    minHeight: '420px',
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    position: 'relative',
    backgroundColor: tokens.colorNeutralBackground1,
  },
  status: { position: 'absolute', top: tokens.spacingVerticalS, left: tokens.spacingHorizontalM, zIndex: 5, color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  node: {
    boxSizing: 'border-box',
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalS,
    padding: `0 ${tokens.spacingHorizontalS}`,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke1}`,
    borderRadius: tokens.borderRadiusMedium,
    backgroundColor: tokens.colorNeutralBackground1,
    boxShadow: tokens.shadow2,
    fontSize: tokens.fontSizeBase200,
  },
  root: { border: `${tokens.strokeWidthThick} solid ${tokens.colorBrandStroke1}` },
  typeNode: { backgroundColor: tokens.colorNeutralBackground3, border: `${tokens.strokeWidthThin} dashed ${tokens.colorNeutralStroke1}` },
  text: { display: 'flex', flexDirection: 'column', minWidth: 0, flex: 1 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', fontWeight: tokens.fontWeightSemibold, color: tokens.colorNeutralForeground1 },
  type: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', color: tokens.colorNeutralForeground3 },
  toggle: { minWidth: '40px', flexShrink: 0 },
});

type NodeData = { node: GraphNode; root: boolean; onToggle: (id: string) => void; onOpen: (id: string) => void; direction: 'TB' | 'LR' };
type FlowNode = Node<NodeData>;

const ConfigGraphNode = memo(function ConfigGraphNode({ data }: NodeProps<FlowNode>) {
  const s = useStyles();
  const { node, root, onToggle, onOpen, direction } = data;
  const [target, source] = direction === 'LR' ? [Position.Left, Position.Right] : [Position.Top, Position.Bottom];
  const size = node.kind === 'type' ? NODE_SIZE.type : NODE_SIZE.config;
  const label = node.kind === 'type' ? node.configType || 'Other' : node.config.name || node.id;
  return (
    <div
      className={mergeClasses(s.node, node.kind === 'type' && s.typeNode, root && s.root)}
      style={size}
      data-node-kind={node.kind}
      data-testid={`graph-node-${label}`}
    >
      <Handle type="target" position={target} isConnectable={false} />
      {node.kind === 'config' && <HealthIndicator health={node.config.health ?? 'unknown'} />}
      <span className={s.text}>
        {node.kind === 'config' ? (
          <button
            type="button"
            className={s.name}
            style={{ all: 'unset', cursor: 'pointer', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', fontWeight: 600 }}
            onClick={() => onOpen(node.id)}
            title={`Open ${label}`}
          >
            {label}
          </button>
        ) : (
          <span className={s.name}>{label}</span>
        )}
        <span className={s.type}>{node.kind === 'type' ? `${node.childCount} items` : node.config.type}</span>
      </span>
      {node.childCount > 0 && !root && (
        <Button
          size="small"
          appearance="subtle"
          className={s.toggle}
          aria-expanded={!node.collapsed}
          aria-label={`${node.collapsed ? 'Expand' : 'Collapse'} ${label} (${node.childCount})`}
          onClick={() => onToggle(node.id)}
        >
          {node.collapsed ? `+${node.childCount}` : '−'}
        </Button>
      )}
      <Handle type="source" position={source} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { item: ConfigGraphNode };
const MIN_ZOOM = 0.05;

export interface RelationshipsGraphProps {
  rows: RelatedConfig[];
  rootId: string;
  direction: 'TB' | 'LR';
  edgeStyle: 'smoothstep' | 'bezier';
}

function Graph({ rows, rootId, direction, edgeStyle }: RelationshipsGraphProps) {
  const s = useStyles();
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const model = useMemo(() => buildGraph(rows, rootId, toggled), [rows, rootId, toggled]);
  const [positions, setPositions] = useState<LayoutResponse | null>(null);
  const worker = useRef<Worker | null>(null);
  const seq = useRef(0);
  const [, navigate] = useLocation();
  const flow = useReactFlow();

  const frame = useRef<HTMLDivElement>(null);
  const boxes = useRef<LayoutRequest['nodes']>([]);
  const flowRef = useRef(flow);
  flowRef.current = flow;

  useEffect(() => {
    const w = new LayoutWorker();
    worker.current = w;
    w.onmessage = (e: MessageEvent<LayoutResponse>) => {
      // only the newest layout counts: a toggle during a long layout supersedes it
      if (e.data.seq !== seq.current) return;
      // the view fits the new layout before its nodes render: at 1,000 nodes, rendering them first in the old view
      // mounts hundreds that the fitted view then drops
      const el = frame.current;
      if (el && !e.data.error) flowRef.current.setViewport(getViewportForBounds(layoutBounds(boxes.current, e.data.positions), el.clientWidth, el.clientHeight, MIN_ZOOM, 1.2, 0.1));
      setPositions(e.data);
    };
    return () => w.terminate();
  }, []);

  useEffect(() => {
    const req: LayoutRequest = {
      seq: ++seq.current,
      direction,
      nodes: model.nodes.map((n) => ({ id: n.id, ...(n.kind === 'type' ? NODE_SIZE.type : NODE_SIZE.config) })),
      edges: model.edges,
    };
    boxes.current = req.nodes;
    worker.current?.postMessage(req);
  }, [model, direction]);

  const onToggle = useCallback((id: string) => {
    setToggled((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);
  const onOpen = useCallback((id: string) => navigate(`/catalog/${encodeURIComponent(id)}/relationships`), [navigate]);

  const laidOut = positions && positions.seq === seq.current;
  const nodes: FlowNode[] = useMemo(
    () =>
      laidOut
        ? model.nodes.map((n) => ({
            id: n.id,
            type: 'item',
            position: positions.positions[n.id] ?? { x: 0, y: 0 },
            data: { node: n, root: n.id === rootId, onToggle, onOpen, direction },
            draggable: false,
            connectable: false,
          }))
        : [],
    [laidOut, positions, model, rootId, onToggle, onOpen, direction],
  );
  const edges: Edge[] = useMemo(
    () => (laidOut ? model.edges.map((e) => ({ ...e, type: edgeStyle === 'bezier' ? 'default' : 'smoothstep' })) : []),
    [laidOut, model, edgeStyle],
  );
  const configs = model.nodes.filter((n) => n.kind === 'config').length;
  return (
    <div
      ref={frame}
      className={s.frame}
      data-testid="relationships-graph"
      data-nodes={model.nodes.length}
      data-layout-ms={positions ? Math.round(positions.ms) : ''}
      data-layout-algorithm={positions?.algorithm ?? ''}
    >
      <Text className={s.status} role="status">
        {laidOut ? `${configs} items` : 'Laying out…'}
        {model.hidden > 0 && ` · ${model.hidden} in collapsed groups`}
        {model.deleted > 0 && ` · ${model.deleted} deleted not shown`}
      </Text>
      {!laidOut && !positions && <Spinner size="small" label="Laying out the graph…" style={{ paddingTop: '20vh' }} />}
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onlyRenderVisibleElements
        nodesDraggable={false}
        nodesConnectable={false}
        minZoom={MIN_ZOOM}
        proOptions={{ hideAttribution: true }}
        aria-label="Relationship graph"
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}

/** The related items as a graph (lazy chunk: @xyflow/react, elkjs in a worker). */
export function RelationshipsGraph(props: RelationshipsGraphProps) {
  return (
    <ReactFlowProvider>
      <Graph {...props} />
    </ReactFlowProvider>
  );
}
