import { useEffect, useRef } from 'react';
import { useStoreApi } from '@xyflow/react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { HEALTH_TOKENS } from '../../../components/status/health-indicator';
import { healthColor, type HealthColor } from '../../../components/status/health';
import type { LayoutPositions } from '../../../lib/graph-layout/leaf-grid';
import type { GraphEdge, GraphNode } from './graph-model';
import { NODE_SIZE } from './layout';

const useStyles = makeStyles({
  // under the flow's pane (z-index 4), which takes the drags and clicks
  canvas: { position: 'absolute', top: 0, left: 0, width: '100%', height: '100%', pointerEvents: 'none', zIndex: 3 },
});

export interface OverviewBox { id: string; x: number; y: number; width: number; height: number; color: HealthColor }

const statusOf = (n: GraphNode) => (n.kind === 'group' ? n.status : n.component.status);

/** The boxes the overview draws: each node where the layout put it, in its health colour. */
export function overviewBoxes(nodes: GraphNode[], positions: LayoutPositions): OverviewBox[] {
  const boxes: OverviewBox[] = [];
  for (const n of nodes) {
    const at = positions[n.id];
    if (at) boxes.push({ id: n.id, x: at.x, y: at.y, ...NODE_SIZE[n.kind], color: healthColor(statusOf(n)) });
  }
  return boxes;
}

/** The box under a point of the flow (a click on the overview), if any. */
export function boxAt(boxes: OverviewBox[], x: number, y: number): OverviewBox | undefined {
  return boxes.find((b) => x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height);
}

/** Counts by health colour, for the overview's accessible name. */
export function overviewSummary(boxes: OverviewBox[]): string {
  const count: Record<HealthColor, number> = { red: 0, orange: 0, green: 0, gray: 0 };
  for (const b of boxes) count[b.color]++;
  const names: [HealthColor, string][] = [['red', 'unhealthy'], ['orange', 'warning'], ['green', 'healthy'], ['gray', 'unknown']];
  const parts = names.filter(([c]) => count[c] > 0).map(([c, name]) => `${count[c]} ${name}`);
  return `Overview of ${boxes.length} nodes${parts.length ? `: ${parts.join(', ')}` : ''}. Zoom in to read and reach them.`;
}

/**
 * The whole graph zoomed out, drawn on one canvas: the nodes as boxes in their health colour, the edges as steps
 * (relationships dashed). It replaces the flow's nodes and edges below FAR_ZOOM: there, thousands of positioned
 * elements cost a layerisation of every one of them per frame of a pan (50-60 ms of main-thread CPU at 2,000 nodes in
 * a trace), while the canvas redraws only what is in view, once per frame, without touching the DOM. It follows the
 * flow's viewport by subscribing to the store, not through React state.
 */
export function OverviewCanvas({ boxes, edges, direction, label }: { boxes: OverviewBox[]; edges: GraphEdge[]; direction: 'TB' | 'LR'; label: string }) {
  const s = useStyles();
  const canvas = useRef<HTMLCanvasElement>(null);
  const store = useStoreApi();

  useEffect(() => {
    const el = canvas.current;
    const ctx = el?.getContext('2d');
    if (!el || !ctx) return;
    // the theme's colours are CSS variables: resolved once per mount (a theme change remounts the page)
    const css = getComputedStyle(el);
    const resolve = (v: string) => (v.startsWith('var(') ? css.getPropertyValue(v.slice(4, -1).split(',')[0].trim()).trim() || '#888' : v);
    const fill: Record<HealthColor, string> = {
      red: resolve(HEALTH_TOKENS.red), orange: resolve(HEALTH_TOKENS.orange), green: resolve(HEALTH_TOKENS.green), gray: resolve(HEALTH_TOKENS.gray),
    };
    const stroke = resolve(tokens.colorNeutralStroke1);
    const byId = new Map(boxes.map((b) => [b.id, b]));
    const byColor = (['gray', 'green', 'orange', 'red'] as HealthColor[]).map((c) => [c, boxes.filter((b) => b.color === c)] as const);
    const lines = edges
      .map((e) => ({ from: byId.get(e.source), to: byId.get(e.target), dashed: e.kind === 'relationship' }))
      .filter((l): l is { from: OverviewBox; to: OverviewBox; dashed: boolean } => !!l.from && !!l.to);

    let pending = 0;
    let drawn = '';
    const draw = () => {
      pending = 0;
      const { transform: [tx, ty, k], width, height } = store.getState();
      const dpr = window.devicePixelRatio || 1;
      const key = `${tx},${ty},${k},${width},${height},${dpr}`;
      if (key === drawn) return;
      drawn = key;
      const [pw, ph] = [Math.round(width * dpr), Math.round(height * dpr)];
      if (el.width !== pw || el.height !== ph) [el.width, el.height] = [pw, ph];
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, pw, ph);
      ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * tx, dpr * ty);
      // the view in flow coordinates: only what meets it is drawn
      const [x0, y0, x1, y1] = [-tx / k, -ty / k, (width - tx) / k, (height - ty) / k];
      const inView = (b: OverviewBox) => b.x <= x1 && b.x + b.width >= x0 && b.y <= y1 && b.y + b.height >= y0;
      ctx.lineWidth = 1 / k;
      ctx.strokeStyle = stroke;
      for (const dashed of [false, true]) {
        ctx.setLineDash(dashed ? [6 / k, 4 / k] : []);
        ctx.beginPath();
        for (const { from, to, dashed: d } of lines) {
          if (d !== dashed) continue;
          const [sx, sy, ex, ey] =
            direction === 'LR'
              ? [from.x + from.width, from.y + from.height / 2, to.x, to.y + to.height / 2]
              : [from.x + from.width / 2, from.y + from.height, to.x + to.width / 2, to.y];
          if (Math.max(sx, ex) < x0 || Math.min(sx, ex) > x1 || Math.max(sy, ey) < y0 || Math.min(sy, ey) > y1) continue;
          ctx.moveTo(sx, sy);
          if (direction === 'LR') {
            const mx = (sx + ex) / 2;
            ctx.lineTo(mx, sy);
            ctx.lineTo(mx, ey);
          } else {
            const my = (sy + ey) / 2;
            ctx.lineTo(sx, my);
            ctx.lineTo(ex, my);
          }
          ctx.lineTo(ex, ey);
        }
        ctx.stroke();
      }
      ctx.setLineDash([]);
      for (const [color, list] of byColor) {
        ctx.fillStyle = fill[color];
        ctx.beginPath();
        for (const b of list) if (inView(b)) ctx.rect(b.x, b.y, b.width, b.height);
        ctx.fill();
      }
    };
    draw();
    // one draw per frame at most, however many viewport updates the frame brings
    const unsubscribe = store.subscribe(() => {
      if (!pending) pending = requestAnimationFrame(draw);
    });
    return () => {
      unsubscribe();
      if (pending) cancelAnimationFrame(pending);
    };
  }, [boxes, edges, direction, store]);

  return <canvas ref={canvas} className={s.canvas} role="img" aria-label={label} data-testid="topology-graph-overview" />;
}
