import { memo, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import {
  Background,
  ControlButton,
  Controls,
  getViewportForBounds,
  Handle,
  MiniMap,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStore,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { makeStyles, mergeClasses, Spinner, Text, tokens } from '@fluentui/react-components';
import type { TopologyComponent } from '@contracts/topology';
import { HEALTH_TOKENS } from '../../../components/status/health-indicator';
import { healthColor } from '../../../components/status/health';
import { layoutBounds } from '../../../lib/graph-layout/leaf-grid';
import { buildTopologyGraph, type GraphNode } from './graph-model';
import { NODE_SIZE, type LayoutRequest, type LayoutResponse } from './layout';
import LayoutWorker from './layout.worker.ts?worker';
import { boxAt, OverviewCanvas, overviewBoxes, overviewSummary } from './overview-canvas';

const useStyles = makeStyles({
  frame: {
    height: '72vh',
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
    borderLeftWidth: '6px',
    borderRadius: tokens.borderRadiusMedium,
    backgroundColor: tokens.colorNeutralBackground1,
    fontSize: tokens.fontSizeBase200,
    cursor: 'pointer',
  },
  group: { justifyContent: 'center', borderTopStyle: 'dashed', borderRightStyle: 'dashed', borderBottomStyle: 'dashed', backgroundColor: tokens.colorNeutralBackground3, fontWeight: tokens.fontWeightSemibold },
  text: { display: 'flex', flexDirection: 'column', minWidth: 0, flex: 1 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', fontWeight: tokens.fontWeightSemibold, color: tokens.colorNeutralForeground1 },
  type: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', color: tokens.colorNeutralForeground3 },
  // edges attach here; nothing connects by hand, so the dots stay out of sight (hidden, not transparent: an opacity
  // is one more layer to composite per handle)
  handle: { visibility: 'hidden' },
  icon: { width: '20px', height: '20px', flexShrink: 0, objectFit: 'contain' },
});

type NodeData = { node: GraphNode; direction: 'TB' | 'LR' };
type FlowNode = Node<NodeData>;

const statusOf = (n: GraphNode) => (n.kind === 'group' ? n.status : n.component.status);
const labelOf = (n: GraphNode) =>
  n.kind === 'group'
    ? `Show ${n.count} more components (worst: ${n.status})`
    : `${n.component.name}${n.component.type ? `, ${n.component.type}` : ''}, ${n.component.status}`;

// Nodes hold no controls of their own: the node is the control (role button, focusable, Enter opens), so a
// keyboard user tabs node to node and a screen reader hears one name per node.
const TopologyNode = memo(function TopologyNode({ data }: NodeProps<FlowNode>) {
  const s = useStyles();
  const { node, direction } = data;
  const [target, source] = direction === 'LR' ? [Position.Left, Position.Right] : [Position.Top, Position.Bottom];
  const color = HEALTH_TOKENS[healthColor(statusOf(node))];
  if (node.kind === 'group') {
    return (
      <div className={mergeClasses(s.node, s.group)} style={{ ...NODE_SIZE.group, borderLeftColor: color }} data-status={node.status} data-testid="topology-graph-group">
        <Handle className={s.handle} type="target" position={target} isConnectable={false} />
        +{node.count} more
      </div>
    );
  }
  const c = node.component;
  return (
    <div className={s.node} style={{ ...NODE_SIZE.component, borderLeftColor: color }} data-status={c.status} data-testid={`topology-graph-node-${c.name}`}>
      <Handle className={s.handle} type="target" position={target} isConnectable={false} />
      {c.icon && /^(https?:|\/|data:)/.test(c.icon) && <img className={s.icon} src={c.icon} alt="" />}
      <span className={s.text}>
        <span className={s.name}>{c.name}</span>
        <span className={s.type}>{c.type ?? ''}{node.childCount > 0 ? ` · ${node.childCount} children` : ''}</span>
      </span>
      <Handle className={s.handle} type="source" position={source} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { component: TopologyNode };
// low enough to fit 2,000 components whole (about 80,000 px wide): the shape and its colours, then zoom in
const MIN_ZOOM = 0.015;
/**
 * The first view of a big graph: fitted whole, a graph of more than FIRST_VIEW_NODES would open at a zoom where no
 * name can be read while every node is drawn (2,000 mounted before the first paint). It opens on its top levels
 * (the roots and two levels below) at a zoom of at least READABLE_ZOOM instead; Fit view and the minimap show it all.
 */
const FIRST_VIEW_NODES = 200;
const READABLE_ZOOM = 0.5;
/**
 * Below this zoom a name is about 4 px high. A graph of more than FIRST_VIEW_NODES is then drawn as an overview on
 * one canvas (overview-canvas.tsx) instead of the flow's nodes and edges: boxes in their health colours, a click on
 * one acts as a click on the node. Zoomed out that far, a pan of 2,000 DOM nodes re-layerised every one of them per
 * frame (long tasks of 50-150 ms); the canvas draws what is in view in a few milliseconds.
 */
const FAR_ZOOM = 0.3;
const farSelector = (s: { transform: [number, number, number] }) => s.transform[2] < FAR_ZOOM;
const NONE: never[] = [];
// xyflow's fit-view icon (its own button fits only measured nodes; ours fits the whole layout)
const FitIcon = () => (
  <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 30" aria-hidden="true">
    <path d="M3.692 4.63c0-.53.4-.938.939-.938h5.215V0H4.708C2.13 0 0 2.054 0 4.63v5.216h3.692V4.631zM27.354 0h-5.2v3.692h5.17c.53 0 .984.4.984.939v5.215H32V4.631A4.624 4.624 0 0027.354 0zm.954 24.83c0 .532-.4.94-.939.94h-5.215v3.768h5.215c2.577 0 4.631-2.13 4.631-4.707v-5.139h-3.692v5.139zm-23.677.94c-.531 0-.939-.4-.939-.94v-5.138H0v5.139c0 2.577 2.13 4.707 4.708 4.707h5.138V25.77H4.631z" />
  </svg>
);
const miniMapColor = (n: FlowNode) => HEALTH_TOKENS[healthColor(statusOf(n.data.node))];

export interface TopologyGraphProps {
  components: TopologyComponent[];
  onSelect(id: string): void;
  direction?: 'TB' | 'LR';
}

function Graph({ components, onSelect, direction = 'TB' }: TopologyGraphProps) {
  const s = useStyles();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const model = useMemo(() => buildTopologyGraph(components, expanded), [components, expanded]);
  const [positions, setPositions] = useState<LayoutResponse | null>(null);
  const worker = useRef<Worker | null>(null);
  const seq = useRef(0);
  const flow = useReactFlow();
  const far = useStore(farSelector) && model.nodes.length > FIRST_VIEW_NODES;
  const frame = useRef<HTMLDivElement>(null);
  const boxes = useRef<LayoutRequest['nodes']>([]);
  const flowRef = useRef(flow);
  flowRef.current = flow;
  // what the next layout's view fits: everything (first layout, new data), or the group just opened (its parent and
  // children, so the user sees what the click brought)
  const fitNext = useRef<'all' | string | null>('all');

  useEffect(() => {
    const w = new LayoutWorker();
    worker.current = w;
    w.onmessage = (e: MessageEvent<LayoutResponse>) => {
      if (e.data.seq !== seq.current) return; // only the newest layout counts
      latest.current = e.data;
      const el = frame.current;
      // fit before the nodes render: rendering 2,000 in the old view mounts hundreds the fitted view then drops
      if (el && !e.data.error && fitNext.current) {
        const focus = fitNext.current;
        fitNext.current = null;
        const fit = focus === 'all' ? boxes.current : boxes.current.filter((b) => b.id === focus || parents.current.get(b.id) === focus);
        const view = (list: typeof fit, minZoom: number) =>
          getViewportForBounds(layoutBounds(list, e.data.positions), el.clientWidth, el.clientHeight, minZoom, 1.2, 0.1);
        let viewport = view(fit, MIN_ZOOM);
        if (focus === 'all' && fit.length > FIRST_VIEW_NODES && viewport.zoom < READABLE_ZOOM) {
          const depth = (id: string) => {
            let d = 0;
            for (let p = parents.current.get(id); p !== undefined && d < 64; p = parents.current.get(p)) d++;
            return d;
          };
          viewport = view(fit.filter((b) => depth(b.id) <= 2), READABLE_ZOOM);
        }
        flowRef.current.setViewport(viewport);
      }
      setPositions(e.data);
    };
    return () => w.terminate();
  }, []);

  // other roots (zoomed elsewhere) are a new picture: fit it whole; a live refetch of the same keeps the user's place
  const rootKey = components.map((c) => c.id).join();
  useEffect(() => {
    fitNext.current = 'all';
  }, [rootKey]);
  const parents = useRef(new Map<string, string>());
  const latest = useRef<LayoutResponse | null>(null);
  // Fit view fits every node the layout placed (xyflow's own fits only the nodes it has measured, and with
  // onlyRenderVisibleElements or the overview that is a few of a big graph)
  const fitAll = useCallback(() => {
    const el = frame.current;
    const laid = latest.current;
    if (!el || !laid || laid.error || laid.seq !== seq.current) return;
    flowRef.current.setViewport(getViewportForBounds(layoutBounds(boxes.current, laid.positions), el.clientWidth, el.clientHeight, MIN_ZOOM, 1.2, 0.1));
  }, []);
  useEffect(() => {
    parents.current = new Map(model.edges.filter((e) => e.kind === 'parent').map((e) => [e.target, e.source]));
    const req: LayoutRequest = {
      seq: ++seq.current,
      direction,
      nodes: model.nodes.map((n) => ({ id: n.id, ...NODE_SIZE[n.kind] })),
      edges: model.edges,
    };
    boxes.current = req.nodes;
    worker.current?.postMessage(req);
  }, [model, direction]);

  const activate = useCallback(
    (id: string) => {
      const n = model.nodes.find((x) => x.id === id);
      if (n?.kind === 'group') {
        fitNext.current = n.parentId;
        setExpanded((prev) => new Set(prev).add(n.parentId));
      }
      else if (n) onSelect(n.id);
    },
    [model, onSelect],
  );
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      const id = (e.target as HTMLElement).closest('.react-flow__node')?.getAttribute('data-id');
      if (!id) return;
      e.preventDefault();
      activate(id);
    },
    [activate],
  );

  const laidOut = positions?.seq === seq.current;
  const nodes: FlowNode[] = useMemo(
    () =>
      laidOut
        ? model.nodes.map((n) => ({
            id: n.id,
            type: 'component',
            position: positions.positions[n.id] ?? { x: 0, y: 0 },
            data: { node: n, direction },
            ariaRole: 'button',
            ariaLabel: labelOf(n),
            draggable: false,
            connectable: false,
            ...NODE_SIZE[n.kind],
          }))
        : [],
    [laidOut, positions, model, direction],
  );
  const edges: Edge[] = useMemo(
    () =>
      laidOut
        ? model.edges.map((e) => ({
            id: e.id,
            source: e.source,
            target: e.target,
            type: 'smoothstep',
            focusable: false,
            // edges take no clicks (elementsSelectable is off): no invisible wide path to hit-test under the pointer
            interactionWidth: 0,
            ...(e.kind === 'relationship' && { style: { strokeDasharray: '6 4' }, className: 'relationship' }),
          }))
        : [],
    [laidOut, model],
  );
  const shown = model.nodes.filter((n) => n.kind === 'component').length;
  const boxesDrawn = useMemo(() => (laidOut && far ? overviewBoxes(model.nodes, positions.positions) : []), [laidOut, far, model, positions]);
  const onPaneClick = useCallback(
    (e: MouseEvent) => {
      if (!far) return;
      const at = flowRef.current.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      const hit = boxAt(boxesDrawn, at.x, at.y);
      if (hit) activate(hit.id);
    },
    [far, boxesDrawn, activate],
  );
  return (
    <div
      ref={frame}
      className={s.frame}
      onKeyDown={onKeyDown}
      data-testid="topology-graph"
      data-nodes={model.nodes.length}
      data-layout-ms={positions ? Math.round(positions.ms) : ''}
      data-view={far ? 'overview' : 'nodes'}
    >
      <Text className={s.status} role="status">
        {laidOut ? `${shown} components` : 'Laying out…'}
        {model.folded > 0 && ` · ${model.folded} in collapsed groups`}
      </Text>
      {!positions && <Spinner size="small" label="Laying out the graph…" style={{ paddingTop: '20vh' }} />}
      <ReactFlow
        nodes={far ? NONE : nodes}
        edges={far ? NONE : edges}
        nodeTypes={nodeTypes}
        onNodeClick={(_, n) => activate(n.id)}
        onPaneClick={onPaneClick}
        onlyRenderVisibleElements
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        edgesFocusable={false}
        minZoom={MIN_ZOOM}
        proOptions={{ hideAttribution: true }}
        aria-label="Topology graph"
      >
        {far ? (
          <OverviewCanvas boxes={boxesDrawn} edges={model.edges} direction={direction} label={overviewSummary(boxesDrawn)} />
        ) : (
          <>
            <Background />
            <MiniMap nodeColor={miniMapColor} pannable zoomable ariaLabel="Topology graph overview" />
          </>
        )}
        <Controls showInteractive={false} showFitView={false}>
          <ControlButton className="react-flow__controls-fitview" onClick={fitAll} title="Fit view" aria-label="Fit view">
            <FitIcon />
          </ControlButton>
        </Controls>
      </ReactFlow>
    </div>
  );
}

/**
 * The components as a graph: parent edges solid, relationship edges dashed, big groups folded into "+N" (click to
 * open), health colours, a click or Enter on a node calls onSelect. Lazy chunk: @xyflow/react, dagre in a worker.
 */
export function TopologyGraph(props: TopologyGraphProps) {
  return (
    <ReactFlowProvider>
      <Graph {...props} />
    </ReactFlowProvider>
  );
}
