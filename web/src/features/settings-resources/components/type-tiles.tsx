import { Button, Caption1, makeStyles, Subtitle2, Text, tokens } from '@fluentui/react-components';
import type { TypeTile } from '../descriptors';

const useStyles = makeStyles({
  grid: {
    display: 'grid',
    gridTemplateColumns: 'repeat(auto-fill, minmax(200px, 1fr))',
    gap: tokens.spacingHorizontalM,
    listStyleType: 'none',
    margin: `${tokens.spacingVerticalM} 0`,
    padding: 0,
  },
  tile: {
    width: '100%',
    height: '100%',
    display: 'flex',
    flexDirection: 'column',
    alignItems: 'flex-start',
    gap: tokens.spacingVerticalXS,
    padding: tokens.spacingVerticalM,
    textAlign: 'start',
  },
  muted: { color: tokens.colorNeutralForeground3 },
});

export interface TypeTilesProps {
  /** "Select Topology Type" and the like. */
  heading: string;
  tiles: readonly TypeTile[];
  onPick: (tile: TypeTile) => void;
}

/** A new scraper's or topology's first step: pick a type; its spec template starts the editor. */
export function TypeTiles({ heading, tiles, onPick }: TypeTilesProps) {
  const s = useStyles();
  return (
    <section aria-label={heading}>
      <Subtitle2 as="h2">{heading}</Subtitle2>
      <ul className={s.grid}>
        {tiles.map((t) => (
          <li key={t.label}>
            <Button className={s.tile} onClick={() => onPick(t)} aria-label={t.label}>
              <Text weight="semibold">{t.label}</Text>
              <Caption1 className={s.muted}>{t.description}</Caption1>
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
