import { TypeTiles } from '../../settings-resources/components/type-tiles';
import { SCRAPER_KINDS, type ScraperKind } from '../spec-model';

export const TILES_HEADING = 'Select Scraper Type';

/**
 * A new scraper's first step: spec 001 §3's types. Those this console does not run are shown disabled with "not
 * supported" (the server refuses them at save); Custom goes to the Code tab.
 */
export function ScraperTiles({ onPick }: { onPick: (kind: ScraperKind) => void }) {
  return <TypeTiles heading={TILES_HEADING} tiles={SCRAPER_KINDS} onPick={onPick} />;
}
