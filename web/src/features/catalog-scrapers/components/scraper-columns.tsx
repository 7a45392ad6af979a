import { useMemo } from 'react';
import { Link } from 'wouter';
import { Link as FluentLink, makeStyles, tokens } from '@fluentui/react-components';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { Age } from '../../../components/status/age';
import { JobStatusBadge } from '../../../components/status/job-status';
import { PersonAvatar } from '../../../components/status/person-avatars';
import type { ResourceRow as ScraperRow } from '../../settings-resources/api';
import { scraperSource } from '../source';
import { kindOf, typeLabel, typesOf } from '../spec-model';

const useStyles = makeStyles({
  text: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', display: 'block' },
  run: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  types: { display: 'flex', gap: tokens.spacingHorizontalXS, flexWrap: 'nowrap', overflow: 'hidden' },
  type: {
    padding: `0 ${tokens.spacingHorizontalSNudge}`,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke1}`,
    borderRadius: tokens.borderRadiusMedium,
    fontSize: tokens.fontSizeBase200,
    whiteSpace: 'nowrap',
  },
  unsupported: { color: tokens.colorNeutralForeground3, textDecorationLine: 'line-through' },
});

const col = dataTableColumns<ScraperRow>();
/** A click on the Source link opens it, not the row. */
const own = (e: { stopPropagation(): void }) => e.stopPropagation();
const lastRunOf = (r: ScraperRow) => r.last_runtime ?? r.job_time_start ?? r.job_created_at ?? '';

/** The list's columns: Name, Types, Namespace, Source, Schedule, Last Run (status and age), Created By. */
export function useScraperColumns(): DataTableColumn<ScraperRow>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor((r) => r.name ?? '', {
        id: 'name',
        header: 'Name',
        sortFn: 'text',
        cell: ({ getValue }) => <span className={s.text}>{getValue()}</span>,
      }),
      col.accessor((r) => typesOf(r.spec).map(typeLabel).join(', '), {
        id: 'types',
        header: 'Types',
        sortFn: 'text',
        meta: { width: '160px' },
        cell: ({ row }) => (
          <span className={s.types}>
            {typesOf(row.original.spec).map((t) => {
              // a type this console does not run (a reference manifest applied as a CR) is shown struck through
              const runs = kindOf(t)?.supported ?? false;
              return (
                <span key={t} className={runs ? s.type : `${s.type} ${s.unsupported}`} title={runs ? undefined : `${typeLabel(t)}: not supported`}>
                  {typeLabel(t)}
                </span>
              );
            })}
          </span>
        ),
      }),
      col.accessor((r) => r.namespace ?? '', { id: 'namespace', header: 'Namespace', meta: { width: '120px' } }),
      col.accessor((r) => scraperSource(r).label, {
        id: 'source',
        header: 'Source',
        meta: { width: '150px' },
        cell: ({ row, getValue }) => {
          const src = scraperSource(row.original);
          return src.href ? (
            <Link href={src.href} asChild>
              <FluentLink href={src.href} onClick={own} className={s.text}>{getValue()}</FluentLink>
            </Link>
          ) : (
            <span className={s.text}>{getValue()}</span>
          );
        },
      }),
      col.accessor((r) => r.schedule ?? '', { id: 'schedule', header: 'Schedule', meta: { width: '120px' } }),
      col.accessor(lastRunOf, {
        id: 'last_run',
        header: 'Last Run',
        sortFn: 'datetime',
        meta: { width: '170px' },
        cell: ({ row, getValue }) => (
          <span className={s.run}>
            <JobStatusBadge status={row.original.job_status} />
            {getValue() && <Age value={getValue()} />}
          </span>
        ),
      }),
      col.accessor((r) => (typeof r.created_by === 'object' ? r.created_by?.name ?? '' : ''), {
        id: 'created_by',
        header: 'Created By',
        meta: { width: '150px' },
        cell: ({ row }) => {
          const p = row.original.created_by;
          return p && typeof p === 'object' && <PersonAvatar person={{ ...p, avatar: p.avatar ?? null }} size={20} showName />;
        },
      }),
    ],
    [s],
  );
}
