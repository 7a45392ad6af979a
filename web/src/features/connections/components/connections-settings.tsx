import { useState } from 'react';
import { Button } from '@fluentui/react-components';
import { Add20Regular, PlugConnected24Regular } from '@fluentui/react-icons';
import { connectionType, type Connection, type ConnectionTypeDescriptor } from '@contracts/connections';
import { AppDialog } from '../../../components/app-dialog';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { useConnections } from '../api';
import { ConnectionFormDialog } from './connection-form-dialog';
import { ConnectionTable } from './connection-table';
import { ConnectionTypeTiles } from './connection-type-tiles';
import { DeleteConnectionDialog } from './delete-connection-dialog';

export interface ConnectionsSettingsProps {
  /** Write on `connections`: add, save, delete, test (spec 001 §6). */
  canWrite: boolean;
  currentUserId: string;
}

/** What the dialog shows: the type tiles, a new connection's form, or a saved one's. */
type Editing = { step: 'tiles' } | { step: 'new'; desc: ConnectionTypeDescriptor } | { step: 'edit'; connection: Connection } | null;

/** Settings → Connections (spec 001 §2): the list, the add and edit dialog, Test and Delete. */
export function ConnectionsSettings({ canWrite, currentUserId }: ConnectionsSettingsProps) {
  const list = useConnections();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Connection | null>(null);
  const close = () => setEditing(null);
  const add = () => setEditing({ step: 'tiles' });
  const empty = !list.isLoading && !list.error && list.data?.length === 0;

  const editDesc = editing?.step === 'edit' ? connectionType(editing.connection.type) : undefined;

  return (
    <Page
      title="Connections"
      onRefresh={() => void list.refetch()}
      refreshing={list.isFetching}
      extra={
        canWrite && (
          <Button appearance="primary" icon={<Add20Regular />} onClick={add}>
            Add Connection
          </Button>
        )
      }
    >
      {empty ? (
        <EmptyState
          icon={<PlugConnected24Regular />}
          title="No connections yet"
          description="A connection holds the address and credentials of a database, a cloud account, a chat or a mail server, for health checks, scrapers, playbooks and notifications to use."
          actions={
            canWrite && (
              <Button appearance="primary" icon={<Add20Regular />} onClick={add}>
                Add Connection
              </Button>
            )
          }
        />
      ) : (
        <ConnectionTable
          connections={list.data}
          loading={list.isLoading}
          error={list.error}
          onOpen={(connection) => setEditing({ step: 'edit', connection })}
        />
      )}

      {editing?.step === 'tiles' && (
        <AppDialog open onOpenChange={(o) => !o && close()} title="Select Connection Type" size="large">
          <ConnectionTypeTiles onSelect={(desc) => setEditing({ step: 'new', desc })} />
        </AppDialog>
      )}
      {editing?.step === 'new' && (
        <ConnectionFormDialog
          key={editing.desc.type}
          desc={editing.desc}
          canWrite={canWrite}
          currentUserId={currentUserId}
          onClose={close}
          onBack={() => setEditing({ step: 'tiles' })}
        />
      )}
      {editing?.step === 'edit' && editDesc && (
        <ConnectionFormDialog
          key={editing.connection.id}
          desc={editDesc}
          connection={editing.connection}
          canWrite={canWrite}
          currentUserId={currentUserId}
          onClose={close}
          onDelete={setDeleting}
        />
      )}
      {editing?.step === 'edit' && !editDesc && (
        <AppDialog open onOpenChange={(o) => !o && close()} title="Unknown connection type" size="small">
          {`${editing.connection.name} is of type ${editing.connection.type}, which this console has no form for.`}
        </AppDialog>
      )}
      {deleting && (
        <DeleteConnectionDialog
          connection={deleting}
          onCancel={() => setDeleting(null)}
          onDone={() => {
            setDeleting(null);
            close();
          }}
        />
      )}
    </Page>
  );
}
