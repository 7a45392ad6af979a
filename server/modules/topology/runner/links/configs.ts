import type { LinkStep } from '../types.js';
import { LINK_TABLES, syncLinks } from './queries.js';
import { TARGETS } from './resource-selector.js';
import { entriesOf, linksOf, uniqueBy } from './select.js';

/**
 * `configs` → config_component_relationships: each config selector (duty's ResourceSelector; the older `type` and
 * `tags` map are read too; namespace is the config's `namespace` tag) over live config items. One row per component
 * and config (the table's key), so the first selector that matches owns it; a link made by hand stays as it is.
 */
export const configsStep: LinkStep = {
  name: 'configs',
  async run(db, topologyId, saved) {
    const notes: string[] = [];
    const links = await linksOf(db, TARGETS.config_items, entriesOf(saved, 'configs'), notes);
    const unique = uniqueBy(links, (l) => `${l.owner}/${l.target}`);
    return { linked: await syncLinks(db, LINK_TABLES.configs, topologyId, unique), notes };
  },
};
