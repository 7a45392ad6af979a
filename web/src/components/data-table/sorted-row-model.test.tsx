// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderHook } from '@testing-library/react';
import {
  columnGroupingFeature,
  createColumnHelper,
  createGroupedRowModel,
  createSortedRowModel,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  sortFn_datetime,
  sortFn_text,
  tableFeatures,
  useTable,
  type ColumnDef,
  type SortingState,
} from '@tanstack/react-table';
import { createKeyedSortedRowModel } from './sorted-row-model';

type Rec = { id: string; name: string; n: number | undefined; at: string; team: string };

const sortFns = { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic, datetime: sortFn_datetime, text: sortFn_text };
const common = { rowSortingFeature, columnGroupingFeature, groupedRowModel: createGroupedRowModel(), sortFns };
const theirs = tableFeatures({ ...common, sortedRowModel: createSortedRowModel() });
const ours = tableFeatures({ ...common, sortedRowModel: createKeyedSortedRowModel() });

const col = createColumnHelper<typeof theirs, Rec>();
const columns: ColumnDef<typeof theirs, Rec, any>[] = [
  col.accessor('name', { id: 'name', sortFn: 'text' }),
  col.accessor('n', { id: 'n', sortFn: 'basic' }),
  col.accessor('name', { id: 'alnum', sortFn: 'alphanumeric' }),
  col.accessor('at', { id: 'at', sortFn: 'datetime', invertSorting: true }),
  col.accessor('n', { id: 'nLast', sortFn: 'basic', sortUndefined: 'last' }),
  // a sort function of its own (no resolveDataValue/sort parts): called with the rows
  col.accessor('name', { id: 'custom', sortFn: (a, b) => a.original.name.length - b.original.name.length }),
  col.accessor('team', { id: 'team' }),
];

// deterministic pseudo-random records with ties, mixed case, numbers inside names and missing values
function records(count: number): Rec[] {
  let seed = 7;
  const rand = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % k);
  return Array.from({ length: count }, (_, i) => ({
    id: `r${i}`,
    name: `${['Alpha', 'beta', 'GAMMA', 'delta'][rand(4)]}-${rand(30)}`,
    n: rand(5) === 0 ? undefined : rand(20),
    at: new Date(Date.UTC(2026, 0, 1 + rand(10))).toISOString(),
    team: ['red', 'blue', 'green'][rand(3)],
  }));
}

function order(features: typeof theirs | typeof ours, data: Rec[], sorting: SortingState, grouping: string[]) {
  const table = renderHook(() =>
    useTable({ features: features as typeof theirs, columns, data, getRowId: (r) => r.id, state: { sorting, grouping }, groupedColumnMode: false }),
  ).result.current;
  const walk = (rows: ReturnType<typeof table.getSortedRowModel>['rows']): string[] =>
    rows.flatMap((r) => [r.id, ...walk(r.subRows)]);
  const model = table.getSortedRowModel();
  return { tree: walk(model.rows), flat: model.flatRows.map((r) => r.id) };
}

describe('createKeyedSortedRowModel', () => {
  const data = records(400);
  const cases: [string, SortingState, string[]][] = [
    ['text ascending', [{ id: 'name', desc: false }], []],
    ['text descending', [{ id: 'name', desc: true }], []],
    ['numbers with undefined (sortUndefined 1)', [{ id: 'n', desc: false }], []],
    ['numbers with undefined, descending', [{ id: 'n', desc: true }], []],
    ['undefined last', [{ id: 'nLast', desc: true }], []],
    ['alphanumeric', [{ id: 'alnum', desc: false }], []],
    ['datetime, inverted', [{ id: 'at', desc: false }], []],
    ['a sort function of its own', [{ id: 'custom', desc: true }], []],
    ['two entries', [{ id: 'n', desc: true }, { id: 'name', desc: false }], []],
    ['grouped: groups and their rows', [{ id: 'name', desc: false }], ['team']],
    ['grouped, descending', [{ id: 'n', desc: true }], ['team']],
  ];
  for (const [name, sorting, grouping] of cases) {
    it(`orders rows as TanStack's sorted row model does: ${name}`, () => {
      const expected = order(theirs, data, sorting, grouping);
      expect(order(ours, data, sorting, grouping)).toEqual(expected);
      // the case really reorders something (a test that cannot fail proves nothing)
      expect(expected.tree).not.toEqual(order(theirs, data, [], grouping).tree);
    });
  }

  it('returns an already ordered level as it is', () => {
    const sorted = [...data].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0));
    const table = renderHook(() =>
      useTable({ features: ours as typeof theirs, columns, data: sorted, state: { sorting: [{ id: 'name', desc: false }], grouping: [] } }),
    ).result.current;
    expect(table.getSortedRowModel().rows.map((r) => r.original)).toEqual(sorted);
  });
});
