import { Button, Caption1, makeStyles, Subtitle2, Text, tokens } from '@fluentui/react-components';
import { SCRAPER_KINDS, type ScraperKind } from '../spec-model';

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

export const TILES_HEADING = 'Select Scraper Type';

/**
 * A new scraper's first step: spec 001 §3's types. Those this console does not run are shown disabled with "not
 * supported" (the server refuses them at save); Custom goes to the Code tab.
 */
export function ScraperTiles({ onPick }: { onPick: (kind: ScraperKind) => void }) {
  const s = useStyles();
  return (
    <section aria-label={TILES_HEADING}>
      <Subtitle2 as="h2">{TILES_HEADING}</Subtitle2>
      <ul className={s.grid}>
        {SCRAPER_KINDS.map((k) => (
          <li key={k.key}>
            <Button
              className={s.tile}
              onClick={() => onPick(k)}
              disabledFocusable={!k.supported}
              aria-label={k.supported ? k.label : `${k.label} (not supported)`}
            >
              <Text weight="semibold">{k.label}</Text>
              <Caption1 className={s.muted}>{k.supported ? k.description : 'Not supported'}</Caption1>
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
