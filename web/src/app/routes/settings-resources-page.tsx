import type { ReactNode } from 'react';
import { Redirect } from 'wouter';
import { ResourceDetail } from '../../features/settings-resources/components/resource-detail';
import { ResourceList } from '../../features/settings-resources/components/resource-list';
import { descriptorOf, type ResourceDescriptor } from '../../features/settings-resources/descriptors';
import { FeatureDisabledPage, NotFoundPage, UnauthorizedPage } from '../route-preload';
import { useSession } from '../session-context';

type Params = Record<string, string | undefined>;

/**
 * The route table's gate for a generic table, which only the URL names: an unknown table is not found, then the
 * descriptor's feature flag, then read (write for /new) on its resource, as the server checks them.
 */
function TableGate({ table, write, at, children }: { table: string | undefined; write?: boolean; at?: string; children: (d: ResourceDescriptor) => ReactNode }) {
  const session = useSession();
  const d = descriptorOf(table);
  if (!d) return <NotFoundPage />;
  if (d.movedTo) return <Redirect to={d.movedTo(at)} replace />;
  if (!session.enabled(d.feature)) return <FeatureDisabledPage title={d.title} />;
  if (!session.can(d.resource, write ? 'write' : 'read')) return <UnauthorizedPage title={d.title} />;
  return children(d);
}

/** /settings/{table} */
export function SettingsResourceListPage({ params }: { params: Params }) {
  const session = useSession();
  return (
    <TableGate table={params.table}>
      {(d) => <ResourceList key={d.table} descriptor={d} canWrite={session.can(d.resource, 'write')} currentUserId={session.user.id} />}
    </TableGate>
  );
}

/** /settings/{table}/{id} */
export function SettingsResourcePage({ params }: { params: Params }) {
  const session = useSession();
  return (
    <TableGate table={params.table} at={params.id}>
      {(d) => (
        <ResourceDetail key={`${d.table}:${params.id}`} descriptor={d} id={params.id} canWrite={session.can(d.resource, 'write')} currentUserId={session.user.id} />
      )}
    </TableGate>
  );
}

/** /settings/{table}/new: write on the table's resource. */
export function SettingsResourceNewPage({ params }: { params: Params }) {
  const session = useSession();
  return (
    <TableGate table={params.table} write at="new">
      {(d) => <ResourceDetail key={`${d.table}:new`} descriptor={d} canWrite currentUserId={session.user.id} />}
    </TableGate>
  );
}
