import type { TopologyComponent } from '@contracts/topology';
import { childrenByHealth, componentHref, href, INSIGHTS_SHOWN } from './model';

/*
 * The card's status lines (the reference's TopologyCardStatuses): health checks, incidents by type, insights, and the
 * children with their health, each line a link and each count a chip with its own link (spec 001 §2's card links).
 */

export type ChipColor = 'red' | 'orange' | 'yellow' | 'green' | 'gray';
export interface Chip {
  count: number;
  color: ChipColor;
  href: string;
  /** What the count is, for the accessible name ("3 unhealthy"). */
  label: string;
}
export interface StatusLine {
  key: string;
  kind: 'checks' | 'incident' | 'insight' | 'child';
  label: string;
  href: string;
  chips: Chip[];
  /** A child's own health (the dot before its name). */
  health?: string;
}

const HEALTH_COLOR: Record<string, ChipColor> = { unhealthy: 'red', warning: 'orange', healthy: 'green', unknown: 'gray' };

/** Incident severities as the incidents screen names them (duty: Low … Blocker); low and medium read as green. */
const SEVERITY_COLOR: Record<string, ChipColor> = {
  blocker: 'red', critical: 'red', high: 'orange', medium: 'green', low: 'green',
};
const INSIGHT_COLOR: Record<string, ChipColor> = {
  critical: 'red', high: 'orange', warning: 'yellow', medium: 'green', low: 'green', info: 'gray',
};
const SEVERITY_RANK = ['blocker', 'critical', 'high', 'warning', 'medium', 'low', 'info'];
const bySeverity = (a: string, b: string) => {
  const ra = SEVERITY_RANK.indexOf(a.toLowerCase());
  const rb = SEVERITY_RANK.indexOf(b.toLowerCase());
  return (ra < 0 ? 99 : ra) - (rb < 0 ? 99 : rb) || a.localeCompare(b);
};

/** Health Checks: the linked checks' counts, each to /health filtered by that status. */
function checksLine(c: TopologyComponent): StatusLine | undefined {
  const checks = c.summary?.checks ?? {};
  const chips = (['unhealthy', 'warning', 'healthy', 'unknown'] as const)
    .filter((st) => (checks[st] ?? 0) > 0)
    .map((st) => ({ count: checks[st], color: HEALTH_COLOR[st], href: href('/health', { status: st }), label: `${checks[st]} ${st}` }));
  return chips.length ? { key: 'checks', kind: 'checks', label: 'Health Checks', href: '/health', chips } : undefined;
}

const incidentTypeLabel = (type: string) => type.replace(/[_-]+/g, ' ').replace(/^\w/, (m) => m.toUpperCase());

function incidentLines(c: TopologyComponent): StatusLine[] {
  return Object.entries(c.summary?.incidents ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([type, severities]) => ({
    key: `incident:${type}`,
    kind: 'incident' as const,
    label: incidentTypeLabel(type),
    href: href('/incidents', { type, component: c.id }),
    chips: Object.entries(severities).filter(([, n]) => n > 0).sort(([a], [b]) => bySeverity(a, b)).map(([severity, n]) => ({
      count: n,
      color: SEVERITY_COLOR[severity.toLowerCase()] ?? 'gray',
      href: href('/incidents', { severity, component: c.id, type }),
      label: `${n} ${severity}`,
    })),
  })).filter((l) => l.chips.length > 0);
}

function insightLines(c: TopologyComponent): StatusLine[] {
  return Object.entries(c.summary?.insights ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([type, severities]) => ({
    key: `insight:${type}`,
    kind: 'insight' as const,
    label: incidentTypeLabel(type),
    href: href('/catalog/insights', { component: c.id, type }),
    chips: Object.entries(severities).filter(([, n]) => n > 0).sort(([a], [b]) => bySeverity(a, b)).map(([severity, n]) => ({
      count: n,
      color: INSIGHT_COLOR[severity.toLowerCase()] ?? 'gray',
      href: href('/catalog/insights', { component: c.id, type, severity }),
      label: `${n} ${severity}`,
    })),
  })).filter((l) => l.chips.length > 0);
}

/** A child: its health dot, its name to /topology/{id}, its own roll-up counts. */
function childLine(child: TopologyComponent): StatusLine {
  const s = child.summary ?? {};
  const chips = (['unhealthy', 'warning', 'healthy'] as const)
    .filter((st) => (s[st] ?? 0) > 0)
    .map((st) => ({ count: s[st] ?? 0, color: HEALTH_COLOR[st], href: componentHref(child.id, { status: st }), label: `${s[st]} ${st}` }));
  return {
    key: `child:${child.id}`,
    kind: 'child',
    label: child.text || child.name,
    href: componentHref(child.id),
    chips,
    health: child.status,
  };
}

export interface CardLines {
  lines: StatusLine[];
  /** Insight lines left out (the card shows five until "more"). */
  moreInsights: number;
}

/** Every line of a card, in the order it shows them: checks, incidents, insights (five), then the children worst first. */
export function cardLines(c: TopologyComponent, allInsights = false): CardLines {
  const insights = insightLines(c);
  const checks = checksLine(c);
  const shown = allInsights ? insights : insights.slice(0, INSIGHTS_SHOWN);
  return {
    lines: [
      ...(checks ? [checks] : []),
      ...incidentLines(c),
      ...shown,
      ...childrenByHealth(c.components ?? []).map(childLine),
    ],
    moreInsights: insights.length - shown.length,
  };
}
