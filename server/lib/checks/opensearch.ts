import { searchCheckType, SearchCheckSpec } from './lib/search.js';

export const OpensearchCheckSpec = SearchCheckSpec;
export type OpensearchCheckSpec = SearchCheckSpec;

/**
 * `opensearch`: runs `query` against `{url}/{index}/_search` and passes when hits.total equals `results`
 * (`markFailOnEmpty` fails an empty result first, as the reference does). `data` = the response plus `count`.
 */
export const opensearchCheck = searchCheckType('opensearch');
