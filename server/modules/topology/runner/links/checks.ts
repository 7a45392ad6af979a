import type { LinkStep } from '../types.js';
import { inlineSource, removeStaleInline, writeInlineCanary } from './inline.js';
import { LINK_TABLES, syncLinks, topologyOf, type Link } from './queries.js';
import { TARGETS } from './resource-selector.js';
import { linksOf, listOf, uniqueBy, type SelectorEntry } from './select.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * `checks` → check_component_relationships. `{selector}` entries select live checks (name, namespace, types,
 * statuses, labelSelector, fieldSelector, agent); `{inline}` entries become one canary per component
 * (`source = component/<id>`, inline.ts) whose checks are linked. A check created later that a selector matches is
 * linked at the next run. Canaries of components that lost their inline checks (or were removed) are soft-deleted
 * with their checks; a deleted component's canary also goes at once (0061's trigger).
 */
export const checksStep: LinkStep = {
  name: 'checks',
  async run(db, topologyId, saved) {
    const notes: string[] = [];
    const selectors: SelectorEntry[] = [];
    const inline = new Map<string, { c: (typeof saved)[number]; specs: Array<Record<string, unknown>>; path: string }>();
    for (const c of saved) {
      listOf(c.built.checks).forEach((entry, i) => {
        const path = `${c.built.specPath}.checks.${i}`;
        if (!isObject(entry) || (!isObject(entry.selector) && !isObject(entry.inline))) {
          notes.push(`${path}: expected {selector: {...}} or {inline: {...}}`);
          return;
        }
        if (isObject(entry.selector)) selectors.push({ component: c, raw: entry.selector, path: `${path}.selector` });
        if (isObject(entry.inline)) {
          const at = inline.get(c.id) ?? { c, specs: [], path };
          at.specs.push(entry.inline);
          inline.set(c.id, at);
        }
      });
    }
    const links: Link[] = await linksOf(db, TARGETS.checks, selectors, notes);
    if (inline.size) {
      const topo = await topologyOf(db, topologyId);
      for (const { c, specs, path } of inline.values()) {
        const out = await writeInlineCanary(db, c, specs, { namespace: topo.namespace, schedule: topo.schedule, path });
        links.push(...out.links);
        if (out.note) notes.push(out.note);
      }
    }
    await removeStaleInline(db, topologyId, new Set([...inline.keys()].map(inlineSource)));
    const unique = uniqueBy(links, (l) => `${l.owner}/${l.target}/${l.canaryId}/${l.selectorId}`);
    return { linked: await syncLinks(db, LINK_TABLES.checks, topologyId, unique), notes };
  },
};
