import type { BuiltComponent } from './types.js';

/**
 * `parentLookup` (the reference's way to hang a component under another of this topology, matched by name, type,
 * namespace and externalID): each component that has one is moved under the first match. A move that would put a
 * component under its own subtree is a cycle: the component goes under the root instead and the cycle is reported
 * ("cycle: a → b → a"), so the tree never loops. Returns the problems for the job history.
 */
export function reparent(root: BuiltComponent): string[] {
  const problems: string[] = [];
  const parent = new Map<BuiltComponent, BuiltComponent | null>();
  const all: BuiltComponent[] = [];
  const walk = (c: BuiltComponent, p: BuiltComponent | null) => {
    parent.set(c, p);
    all.push(c);
    for (const child of c.children) walk(child, c);
  };
  walk(root, null);
  const moving = all.filter((c) => c.parentLookup);
  if (!moving.length) return problems;

  const move = (c: BuiltComponent, to: BuiltComponent) => {
    const from = parent.get(c);
    if (from === to) return;
    if (from) from.children = from.children.filter((x) => x !== c);
    to.children.push(c);
    parent.set(c, to);
  };
  for (const c of moving) {
    const want = c.parentLookup!;
    const target = all.find((t) => t !== c
      && (want.name === undefined || t.name === want.name)
      && (want.type === undefined || t.type === want.type)
      && (want.namespace === undefined || t.namespace === want.namespace)
      && (want.externalID === undefined || t.externalId === want.externalID));
    if (!target) {
      problems.push(`${c.specPath}.parentLookup: no component of this topology matches ${JSON.stringify(want)}; kept under its parent`);
      continue;
    }
    // the chain from the target up to c, if c is one of its ancestors
    const chain: BuiltComponent[] = [];
    for (let t: BuiltComponent | null | undefined = target; t; t = parent.get(t)) {
      chain.push(t);
      if (t === c) break;
    }
    if (chain.at(-1) === c) {
      // c → … → target → c
      const shown = [c, ...chain.slice(0, -1).reverse(), c].map((x) => x.name);
      problems.push(`cycle: ${shown.join(' → ')} (${c.specPath}.parentLookup); ${c.name} is kept under the root`);
      move(c, root);
      continue;
    }
    move(c, target);
  }
  return problems;
}
