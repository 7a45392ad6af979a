import { useDeferredValue, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TopologyComponent } from '@contracts/topology';
import { TopologyCard, type TopologyCardProps } from './topology-card';

const GAP = 12;
/** A first guess of a row's height; each row is measured once drawn. */
const ROW_ESTIMATE = 220;

const useStyles = makeStyles({
  grid: { position: 'relative', width: '100%' },
  row: { position: 'absolute', left: 0, top: 0, display: 'flex', gap: `${GAP}px`, alignItems: 'flex-start', paddingBottom: `${GAP}px` },
  skeleton: { display: 'flex', flexWrap: 'wrap', gap: `${GAP}px` },
  ghost: {
    height: '160px', borderRadius: tokens.borderRadiusLarge, backgroundColor: tokens.colorNeutralBackground3,
    animationName: { from: { opacity: 0.55 }, to: { opacity: 1 } }, animationDuration: '0.9s',
    animationIterationCount: 'infinite', animationDirection: 'alternate',
  },
});

type CardProps = Omit<TopologyCardProps, 'component' | 'zoomHref' | 'selected' | 'width'>;

/**
 * The cards in rows as many as fit, virtualised by row (@tanstack/react-virtual) in the page's scroll container, so
 * 500 cards draw only the screenful in view; a new width re-flows the rows without re-creating the cards' data.
 */
export function CardGrid({ components, width, scrollRef, zoomHref, selectedId, card }: {
  components: TopologyComponent[];
  width: number;
  scrollRef: RefObject<HTMLElement | null>;
  zoomHref: (c: TopologyComponent) => string;
  selectedId?: string;
  card: CardProps;
}) {
  const s = useStyles();
  const gridRef = useRef<HTMLDivElement>(null);
  const [available, setAvailable] = useState(0);
  useLayoutEffect(() => {
    const el = gridRef.current;
    if (!el) return;
    setAvailable(el.clientWidth);
    const ro = new ResizeObserver(() => setAvailable(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  // The slider moves at once; the grid follows as a deferred (interruptible) render. A width that changes how many
  // cards fit a row regroups the rows and mounts the cards that come into view: rendered urgently, that was one
  // 58–78 ms task in the middle of a slide (bench:topology-web, 3 of 4 quiet runs; none in 3 runs since).
  const cardWidth = useDeferredValue(width);
  const perRow = Math.max(1, Math.floor((available + GAP) / (cardWidth + GAP)));
  const rows = useMemo(() => {
    const out: TopologyComponent[][] = [];
    for (let i = 0; i < components.length; i += perRow) out.push(components.slice(i, i + perRow));
    return out;
  }, [components, perRow]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 3,
    scrollMargin: gridRef.current?.offsetTop ?? 0,
  });
  return (
    <div ref={gridRef} className={s.grid} style={{ height: virtualizer.getTotalSize() }} role="list" aria-label="Components">
      {virtualizer.getVirtualItems().map((v) => (
        <div
          key={v.key}
          data-index={v.index}
          ref={virtualizer.measureElement}
          className={s.row}
          style={{ transform: `translateY(${v.start - virtualizer.options.scrollMargin}px)` }}
        >
          {rows[v.index].map((c) => (
            <div role="listitem" key={c.id}>
              <TopologyCard {...card} component={c} width={cardWidth} zoomHref={zoomHref(c)} selected={c.id === selectedId} />
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}

/** While the first answer loads: grey cards of the chosen width. */
export function CardSkeleton({ width, count = 6 }: { width: number; count?: number }) {
  const s = useStyles();
  return (
    <div className={s.skeleton} aria-busy="true" aria-label="Loading components">
      {Array.from({ length: count }, (_, i) => <div key={i} className={s.ghost} style={{ width }} />)}
    </div>
  );
}
