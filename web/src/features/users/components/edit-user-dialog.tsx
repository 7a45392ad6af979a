import { useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Button, Field, Input, makeStyles, Select, Spinner, Switch, tokens } from '@fluentui/react-components';
import type { UserSummary } from '@contracts/auth';
import { primaryRole, ROLES } from '@contracts/rbac';
import { AppDialog } from '../../../components/app-dialog';
import { useUpdateUser } from '../api';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
});

const EditUserForm = z.object({
  role: z.enum(ROLES, { error: 'Please select any role' }),
  active: z.boolean(),
});

/** Edit User: the role (one, replacing any others) and whether the account is active. */
export function EditUserDialog({ user, onClose }: { user: UserSummary; onClose: () => void }) {
  const s = useStyles();
  const formId = useId();
  const update = useUpdateUser();
  const form = useForm({
    resolver: zodResolver(EditUserForm),
    // the edit form's active flag derives from the state (spec 001, section 4)
    defaultValues: { role: primaryRole(user.roles), active: user.state === 'active' },
  });
  const onSubmit = form.handleSubmit((v) => update.mutate({ user, ...v }, { onSuccess: onClose }));

  return (
    <AppDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title="Edit User"
      size="small"
      actions={
        <>
          <Button appearance="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button
            appearance="primary"
            type="submit"
            form={formId}
            disabled={update.isPending}
            icon={update.isPending ? <Spinner size="tiny" /> : undefined}
          >
            {update.isPending ? 'Saving…' : 'Save'}
          </Button>
        </>
      }
    >
      <form id={formId} className={s.form} onSubmit={onSubmit} noValidate aria-label="Edit User">
        <Field label="Name">
          <Input value={user.name} readOnly />
        </Field>
        <Field label="Email">
          <Input value={user.email ?? ''} readOnly />
        </Field>
        <Field label="Role" required validationMessage={form.formState.errors.role?.message}>
          <Controller
            control={form.control}
            name="role"
            render={({ field }) => (
              <Select
                value={field.value}
                onChange={(_, d) => field.onChange(d.value)}
                onBlur={field.onBlur}
                ref={field.ref}
              >
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </Select>
            )}
          />
        </Field>
        <Controller
          control={form.control}
          name="active"
          render={({ field }) => (
            <Switch
              label={field.value ? 'Active: the user can sign in' : 'Inactive: the user cannot sign in'}
              checked={field.value}
              onChange={(_, d) => field.onChange(d.checked)}
              ref={field.ref}
            />
          )}
        />
      </form>
    </AppDialog>
  );
}
