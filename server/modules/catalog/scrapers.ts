import type { ScraperType } from './types.js';
import { fileScraper } from './scrapers/file.js';
import { httpScraper } from './scrapers/http.js';
import { sqlScraper } from './scrapers/sql.js';
import { kubernetesScraper } from './kubernetes/scrape.js';

/**
 * The scraper types this console runs, one line each (the spec key of a ScrapeConfig, e.g. `spec.file[]`). Every other
 * key of the reference's ScrapeConfig is refused at save: "spec.<key>: the <key> scraper is not supported; supported:
 * <keys>".
 */
export const SCRAPER_TYPES: Readonly<Record<string, ScraperType>> = {
  file: fileScraper,
  http: httpScraper,
  sql: sqlScraper,
  kubernetes: kubernetesScraper,
};

export const SUPPORTED_SCRAPERS = ['kubernetes', 'file', 'http', 'sql'] as const;
