import { useId, useMemo, useState } from 'react';
import { Button, makeStyles, MessageBar, MessageBarBody, Spinner, tokens } from '@fluentui/react-components';
import { ArrowLeft20Regular, Delete20Regular, PlugConnected20Regular } from '@fluentui/react-icons';
import { FormProvider } from 'react-hook-form';
import {
  connectionFormSchema,
  connectionFormValues,
  connectionWriteBody,
  type Connection,
  type ConnectionTypeDescriptor,
  type FieldValues,
} from '@contracts/connections';
import { AppDialog } from '../../../components/app-dialog';
import { useZodForm } from '../../../components/forms/form-dialog';
import { useAddConnection, useTestConnection, useUpdateConnection, type TestOutcome } from '../api';
import { ConnectionFields } from './connection-fields';
import { TestResultsDialog } from './test-results-dialog';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  spacer: { flex: 1 },
});

export interface ConnectionFormDialogProps {
  desc: ConnectionTypeDescriptor;
  /** Editing this row; absent: a new connection. */
  connection?: Connection;
  /** Write on connections: save, test, delete. Without it the form is shown read-only. */
  canWrite: boolean;
  currentUserId: string;
  onClose: () => void;
  /** New connections only: back to the type tiles. */
  onBack?: () => void;
  onDelete?: (c: Connection) => void;
}

/** '{Type} Connection Details': the descriptor's fields, Save/Update, Test, and Back (new) or Delete (saved). */
export function ConnectionFormDialog({ desc, connection, canWrite, currentUserId, onClose, onBack, onDelete }: ConnectionFormDialogProps) {
  const s = useStyles();
  const formId = useId();
  const editing = !!connection;
  const schema = useMemo(() => connectionFormSchema(desc, editing), [desc, editing]);
  const form = useZodForm(schema, connectionFormValues(desc, connection));
  const add = useAddConnection();
  const update = useUpdateConnection();
  const test = useTestConnection();
  const [testOpen, setTestOpen] = useState(false);
  const [outcome, setOutcome] = useState<TestOutcome | null>(null);
  const busy = add.isPending || update.isPending;
  // read during render: react-hook-form tracks isDirty only for a formState read here
  const dirty = form.formState.isDirty;

  const body = (values: FieldValues) => connectionWriteBody(desc, values, connection?.properties);
  const onSubmit = form.handleSubmit((values) => {
    if (connection) update.mutate({ id: connection.id, body: body(values), createdBy: currentUserId }, { onSuccess: onClose });
    else add.mutate({ body: body(values), createdBy: currentUserId }, { onSuccess: onClose });
  });
  const runTest = (target: Parameters<typeof test.mutate>[0]) => {
    setOutcome(null);
    setTestOpen(true);
    test.mutate(target, { onSuccess: setOutcome });
  };
  // a saved, untouched connection is tested as stored; otherwise what the form holds (checked first), with the id
  // of a saved one so a `***` left in place stands for its stored secret
  const onTest = () =>
    connection && !dirty
      ? runTest({ id: connection.id })
      : void form.handleSubmit((v) => runTest({ body: { ...body(v), ...(connection ? { id: connection.id } : {}) } }))();

  return (
    <>
      <AppDialog
        open
        onOpenChange={(o) => !o && onClose()}
        title={`${desc.label} Connection Details`}
        size="medium"
        initialFocus={editing ? undefined : '[name="name"]'}
        actions={
          <>
            {onBack && (
              <Button icon={<ArrowLeft20Regular />} onClick={onBack}>
                Back
              </Button>
            )}
            {connection && canWrite && onDelete && (
              <Button icon={<Delete20Regular />} onClick={() => onDelete(connection)}>
                Delete
              </Button>
            )}
            <span className={s.spacer} />
            {canWrite && (
              <Button icon={<PlugConnected20Regular />} onClick={onTest} disabledFocusable={test.isPending}>
                Test
              </Button>
            )}
            <Button appearance="secondary" onClick={onClose}>
              {canWrite ? 'Cancel' : 'Close'}
            </Button>
            {canWrite && (
              <Button appearance="primary" type="submit" form={formId} disabledFocusable={busy} icon={busy ? <Spinner size="tiny" /> : undefined}>
                {busy ? 'Saving…' : editing ? 'Update' : 'Save'}
              </Button>
            )}
          </>
        }
      >
        <FormProvider {...form}>
          <form id={formId} className={s.form} noValidate aria-label={`${desc.label} connection`} onSubmit={(e) => void onSubmit(e)}>
            {!canWrite && (
              <MessageBar intent="info">
                <MessageBarBody>You can view this connection; changing it needs write access to connections.</MessageBarBody>
              </MessageBar>
            )}
            <fieldset disabled={!canWrite} style={{ border: 'none', margin: 0, padding: 0, minWidth: 0, display: 'contents' }}>
              <ConnectionFields desc={desc} editing={editing} />
            </fieldset>
          </form>
        </FormProvider>
      </AppDialog>
      {testOpen && <TestResultsDialog outcome={outcome} running={test.isPending} onClose={() => setTestOpen(false)} />}
    </>
  );
}
