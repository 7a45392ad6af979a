import type { ReactNode } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';
import {
  Cloud24Regular,
  CloudFlow24Regular,
  DataHistogram24Regular,
  DocumentBulletList24Regular,
  Organization24Regular,
  ServerMultiple20Regular,
  TextBulletListSquareSearch20Regular,
  Toolbox24Regular,
  ArrowSync24Regular,
} from '@fluentui/react-icons';
import { GITOPS_CHARTS, type GitOpsChart } from '@contracts/gitops';

const useStyles = makeStyles({
  section: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, marginBottom: tokens.spacingVerticalL },
  grid: { display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(150px, 1fr))', gap: tokens.spacingHorizontalM },
  tile: {
    display: 'flex',
    flexDirection: 'column',
    alignItems: 'center',
    justifyContent: 'center',
    gap: tokens.spacingVerticalS,
    minHeight: '88px',
    padding: tokens.spacingHorizontalM,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke1}`,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground1,
    color: tokens.colorNeutralForeground1,
    font: 'inherit',
    cursor: 'pointer',
    ':hover': { backgroundColor: tokens.colorNeutralBackground1Hover, border: `${tokens.strokeWidthThin} solid ${tokens.colorBrandStroke1}` },
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`, outlineOffset: '2px' },
  },
  icon: { color: tokens.colorBrandForeground1, fontSize: '24px' },
});

/** Each GitOps tile's icon, by chart (Fluent has no vendor logos; these name what the bundle watches). */
const CHART_ICONS: Record<string, ReactNode> = {
  'mission-control-aws': <Cloud24Regular />,
  'mission-control-azure': <CloudFlow24Regular />,
  'mission-control-prometheus': <DataHistogram24Regular />,
  'mission-control-flux': <ArrowSync24Regular />,
  'mission-control-kubernetes': <ServerMultiple20Regular />,
  'mission-control': <Toolbox24Regular />,
};

/** 'Add Directly' targets: each opens the resource's own editor. */
export type DirectTarget = 'topologies' | 'config_scrapers' | 'logging_backends';
const DIRECT_TILES: { target: DirectTarget; title: string; icon: ReactNode }[] = [
  { target: 'topologies', title: 'Custom Topology', icon: <Organization24Regular /> },
  { target: 'config_scrapers', title: 'Catalog Scraper', icon: <TextBulletListSquareSearch20Regular /> },
  { target: 'logging_backends', title: 'Log Backends', icon: <DocumentBulletList24Regular /> },
];

function Tile({ title, icon, onClick }: { title: string; icon: ReactNode; onClick: () => void }) {
  const s = useStyles();
  return (
    <button type="button" className={s.tile} onClick={onClick}>
      <span className={s.icon} aria-hidden>{icon}</span>
      <Text weight="semibold">{title}</Text>
    </button>
  );
}

export interface IntegrationTilesProps {
  onGitOps: (chart: GitOpsChart) => void;
  onDirect: (target: DirectTarget) => void;
  /** False when the logs feature is off: the Log Backends tile is hidden (spec 001 §2). */
  logsEnabled: boolean;
}

/** The Add Integration dialog's first step: 'Add via GitOps' charts and 'Add Directly' editors. */
export function IntegrationTiles({ onGitOps, onDirect, logsEnabled }: IntegrationTilesProps) {
  const s = useStyles();
  return (
    <>
      <section className={s.section} aria-labelledby="add-via-gitops">
        <Text as="h3" id="add-via-gitops" weight="semibold" size={400}>Add via GitOps</Text>
        <div className={s.grid}>
          {GITOPS_CHARTS.map((c) => (
            <Tile key={c.chart} title={c.title} icon={CHART_ICONS[c.chart]} onClick={() => onGitOps(c)} />
          ))}
        </div>
      </section>
      <section className={s.section} aria-labelledby="add-directly">
        <Text as="h3" id="add-directly" weight="semibold" size={400}>Add Directly</Text>
        <div className={s.grid}>
          {DIRECT_TILES.filter((t) => t.target !== 'logging_backends' || logsEnabled).map((t) => (
            <Tile key={t.target} title={t.title} icon={t.icon} onClick={() => onDirect(t.target)} />
          ))}
        </div>
      </section>
    </>
  );
}
