import { makeStyles as makeStylesWithFactory, type GriffelRenderer, type GriffelStyle } from '@griffel/core';
import { useRenderer_unstable as useRenderer } from '@griffel/react';

/**
 * `makeStyles` for what a table renders in every row (cells, dots, badges, chips). Fluent's `makeStyles` hook
 * inserts its rules from a `useInsertionEffect` in every component instance, and each mounted instance walks all of
 * its rules again: a 10,000-row table mounts a screenful of new rows per scroll frame, so that walk ran hundreds of
 * times a frame (about 2 ms of a 15 ms scroll step in bench:web). Here the rules go into the renderer once, the
 * first time an instance asks (as Griffel itself does where there is no insertion effect), and an instance only reads
 * the renderer from context. The same compiler, so the same class names and rules as `makeStyles`; the console is
 * left-to-right only (see lib/ltr-only.ts), so there is no direction to read.
 */
export function makeRowStyles<Slots extends string | number>(stylesBySlots: Record<Slots, GriffelStyle>): () => Record<Slots, string> {
  const inserted = new WeakSet<GriffelRenderer>();
  const computeClasses = makeStylesWithFactory(stylesBySlots, () => (renderer, cssRules) => {
    if (inserted.has(renderer)) return;
    inserted.add(renderer);
    renderer.insertCSSRules(cssRules);
  });
  return function useRowStyles() {
    return computeClasses({ dir: 'ltr', renderer: useRenderer() });
  };
}
