import type { LinkStep } from '../types.js';
import { LINK_TABLES, syncLinks } from './queries.js';
import { relationshipLinks } from './relationships.js';
import { TARGETS } from './resource-selector.js';
import { entriesOf, linksOf, uniqueBy } from './select.js';

/**
 * `selectors` → component_relationships: the selecting component is relationship_id, each match component_id (so it
 * shows among the selecting component's children). Never a self-link; a selector cycle (a selects b, b selects a) is
 * kept as written: these links do not roll up, and the tree API cuts a loop where it would repeat. The spec's
 * `relationships` (relationships.ts) are written with them.
 */
export const selectorsStep: LinkStep = {
  name: 'selectors',
  async run(db, topologyId, saved) {
    const notes: string[] = [];
    const links = await linksOf(db, TARGETS.components, entriesOf(saved, 'selectors'), notes, (e, id) => id !== e.component.id);
    // the spec's `relationships` are rows of the same table, so one sync owns both
    links.push(...await relationshipLinks(db, saved, notes));
    const unique = uniqueBy(links, (l) => `${l.owner}/${l.target}/${l.selectorId}`);
    return { linked: await syncLinks(db, LINK_TABLES.components, topologyId, unique), notes };
  },
};
