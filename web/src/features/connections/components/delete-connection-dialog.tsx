import { makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import type { Connection } from '@contracts/connections';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { useConnectionUsage, useDeleteConnection } from '../api';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  muted: { color: tokens.colorNeutralForeground2 },
  list: { margin: 0, paddingLeft: tokens.spacingHorizontalXL, maxHeight: '200px', overflow: 'auto' },
  kind: { color: tokens.colorNeutralForeground3 },
});

/** The delete confirmation, listing what names the connection (those stop working once it is gone). */
export function DeleteConnectionDialog({ connection, onDone, onCancel }: { connection: Connection; onDone: () => void; onCancel: () => void }) {
  const s = useStyles();
  const usage = useConnectionUsage(connection.id);
  const remove = useDeleteConnection();
  const items = usage.data ?? [];

  return (
    <ConfirmDialog
      open
      title="Delete Connection"
      confirmLabel="Delete"
      danger
      busy={remove.isPending}
      initialFocus="cancel"
      onConfirm={() => remove.mutate(connection.id, { onSuccess: onDone })}
      onCancel={onCancel}
      description={
        <div className={s.body}>
          <Text className={s.muted}>
            Delete the connection {connection.name}
            {connection.namespace ? ` in ${connection.namespace}` : ''}?
          </Text>
          {usage.isLoading ? (
            <Spinner size="tiny" label="Looking for what uses it…" />
          ) : items.length > 0 ? (
            <>
              <Text weight="semibold">Used by {items.length === 1 ? 'one item' : `${items.length} items`}, which will stop working:</Text>
              <ul className={s.list} aria-label="Used by">
                {items.map((i) => (
                  <li key={`${i.kind}:${i.id ?? i.name}`}>
                    {i.name} <span className={s.kind}>({i.kind})</span>
                  </li>
                ))}
              </ul>
            </>
          ) : usage.data ? (
            <Text className={s.muted}>Nothing uses it.</Text>
          ) : null}
        </div>
      }
    />
  );
}
