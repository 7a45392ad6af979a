import { searchCheckType, SearchCheckSpec } from './lib/search.js';

export const ElasticsearchCheckSpec = SearchCheckSpec;
export type ElasticsearchCheckSpec = SearchCheckSpec;

/**
 * `elasticsearch`: runs `query` against `{url}/{index}/_search` and passes when hits.total equals `results`.
 * `data` = the search response (`hits`, `took`...) plus `count`.
 */
export const elasticsearchCheck = searchCheckType('elasticsearch');
