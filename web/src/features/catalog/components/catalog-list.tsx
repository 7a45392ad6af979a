import { useCallback, useMemo } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { DatabaseSearch24Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { dataTableColumns } from '../../../components/data-table/columns';
import { DataTable } from '../../../components/data-table/data-table';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { errorMessage } from '../../../lib/api-client';
import { formatCurrency } from '../../../lib/format';
import { useSearchPatch, useUrlState } from '../../../lib/url-state';
import { useCatalogSummary, type CatalogGroup } from '../api';
import { CatalogTabs } from '../catalog-tabs';
import { CATALOG_URL_DEFAULTS, parseGroupBy, type CatalogFilters, type GroupBy } from '../filters';
import { CatalogFilterBar, HEALTH_VALUES } from './catalog-filters';
import { GroupItems } from './group-items';

const useStyles = makeStyles({
  health: { display: 'inline-flex', gap: tokens.spacingHorizontalM, alignItems: 'center' },
  healthCount: { display: 'inline-flex', gap: tokens.spacingHorizontalXXS, alignItems: 'center' },
  none: { color: tokens.colorNeutralForeground3, fontStyle: 'italic' },
});

const col = dataTableColumns<CatalogGroup>();
const NO_GROUPS: CatalogGroup[] = [];

function HealthCounts({ health }: { health: Record<string, number> }) {
  const s = useStyles();
  const known = [...HEALTH_VALUES, ...Object.keys(health).filter((k) => !(HEALTH_VALUES as readonly string[]).includes(k))];
  return (
    <span className={s.health}>
      {known.filter((h) => health[h]).map((h) => (
        <span key={h} className={s.healthCount} title={`${health[h]} ${h}`}>
          <HealthIndicator health={h} size="small" />
          {health[h]}
        </span>
      ))}
    </span>
  );
}

function groupName(groupBy: GroupBy): string {
  return groupBy === 'type' ? 'Type' : groupBy === 'config_class' ? 'Class' : groupBy.slice(4);
}

/** /catalog: items grouped by type, class or a tag, each group expanding to its items; every filter in the URL. */
export function CatalogList() {
  const s = useStyles();
  const [raw, setRaw] = useUrlState(CATALOG_URL_DEFAULTS);
  const [params, patch] = useSearchPatch();
  // the changes screen's breadcrumb links to /catalog?configType=…: the same filter as ?type=
  const filters: CatalogFilters = useMemo(
    () => ({ ...raw, type: raw.type || params.get('configType') || '' }),
    [raw, params],
  );
  const groupBy = parseGroupBy(filters.groupBy);
  const summary = useCatalogSummary(groupBy, filters);
  const onChange = useCallback(
    (p: Partial<CatalogFilters>) => {
      if ('type' in p && params.has('configType')) patch({ configType: undefined });
      setRaw(p);
    },
    [setRaw, patch, params],
  );

  const columns = useMemo(
    () => [
      col.accessor('value', {
        header: groupName(groupBy),
        cell: (c) => (c.getValue() === null ? <span className={s.none}>(none)</span> : c.getValue()),
      }),
      col.accessor('count', { header: 'Count', meta: { width: '90px' } }),
      col.accessor('health', { header: 'Health', enableSorting: false, cell: (c) => <HealthCounts health={c.getValue()} /> }),
      col.accessor('changes', { header: 'Changes (30d)', meta: { width: '130px' } }),
      col.accessor('insights', { header: 'Insights', meta: { width: '100px' } }),
      col.accessor('cost_30d', { header: 'Cost (30d)', meta: { width: '110px' }, cell: (c) => formatCurrency(c.getValue()) }),
    ],
    [groupBy, s],
  );

  const renderDetail = useCallback(
    (g: CatalogGroup) => <GroupItems groupBy={groupBy} value={g.value} filters={filters} label={g.value ?? '(none)'} />,
    [groupBy, filters],
  );

  const groups = summary.data ?? NO_GROUPS;
  return (
    <Page title="Catalog" onRefresh={() => void summary.refetch()} refreshing={summary.isFetching}>
      <CatalogTabs selected="catalog" />
      <CatalogFilterBar value={filters} onChange={onChange} />
      {summary.isError ? (
        <EmptyState icon={<ErrorCircle24Regular />} title="The catalog could not be loaded" description={errorMessage(summary.error)} role="alert" />
      ) : !summary.isLoading && !groups.length ? (
        <EmptyState icon={<DatabaseSearch24Regular />} title="No result" description="No catalog items match these filters." />
      ) : (
        <>
          {/* no count until the summary answers: "0 items in 0 groups" while loading reads as an empty catalog */}
          {!summary.isLoading && <Text size={200}>{groups.reduce((n, g) => n + g.count, 0)} items in {groups.length} groups</Text>}
          <DataTable
            label="Catalog groups"
            columns={columns}
            data={groups}
            getRowId={(g) => g.value ?? '\u0000none'}
            loading={summary.isFetching}
            paginate={false}
            urlState={false}
            defaultSort={{ id: 'value' }}
            renderDetail={renderDetail}
          />
        </>
      )}
    </Page>
  );
}
