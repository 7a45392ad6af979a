import { Button, Caption1, makeStyles, Subtitle2, Text, tokens } from '@fluentui/react-components';

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
  step: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  actions: {
    display: 'flex',
    gap: tokens.spacingHorizontalS,
    paddingTop: tokens.spacingVerticalM,
    borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
});

/** What a tile shows; `supported: false` shows it disabled with "Not supported" (a type the server refuses). */
export interface TileLike {
  label: string;
  description: string;
  supported?: boolean;
}

export interface TypeTilesProps<T extends TileLike> {
  /** "Select Topology Type" and the like. */
  heading: string;
  tiles: readonly T[];
  onPick: (tile: T) => void;
}

/** A new scraper's or topology's first step: pick a type; its spec template starts the editor. */
export function TypeTiles<T extends TileLike>({ heading, tiles, onPick }: TypeTilesProps<T>) {
  const s = useStyles();
  return (
    <section aria-label={heading}>
      <Subtitle2 as="h2">{heading}</Subtitle2>
      <ul className={s.grid}>
        {tiles.map((t) => {
          const refused = t.supported === false;
          return (
            <li key={t.label}>
              <Button
                className={s.tile}
                onClick={() => onPick(t)}
                disabledFocusable={refused}
                aria-label={refused ? `${t.label} (not supported)` : t.label}
              >
                <Text weight="semibold">{t.label}</Text>
                <Caption1 className={s.muted}>{refused ? 'Not supported' : t.description}</Caption1>
              </Button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** A new one's first step as the editors show it: the tiles, and Back. */
export function TypeTilesStep<T extends TileLike>({ onBack, ...tiles }: TypeTilesProps<T> & { onBack: () => void }) {
  const s = useStyles();
  return (
    <div className={s.step}>
      <TypeTiles {...tiles} />
      <div className={s.actions}>
        <Button onClick={onBack}>Back</Button>
      </div>
    </div>
  );
}
