import { Field, Input } from '@fluentui/react-components';
import { z } from 'zod';
import type { UserSummary } from '@contracts/auth';
import { primaryRole, ROLES } from '@contracts/rbac';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { SelectField, SwitchField } from '../../../components/forms/form-fields';
import { useUpdateUser } from '../api';
import { UserSecurity } from './user-security';

const EditUserForm = z.object({
  role: z.enum(ROLES, { error: 'Please select any role' }),
  active: z.boolean(),
});
type EditUserForm = z.infer<typeof EditUserForm>;

const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: r }));

/** Edit User: the role (one, replacing any others) and whether the account is active. */
export function EditUserDialog({ user, onClose }: { user: UserSummary; onClose: () => void }) {
  const update = useUpdateUser();
  // the edit form's active flag derives from the state (spec 001, section 4)
  const form = useZodForm(EditUserForm, { role: primaryRole(user.roles), active: user.state === 'active' });
  return (
    <FormDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title="Edit User"
      size="medium"
      form={form}
      onSubmit={(v) => update.mutate({ user, ...v }, { onSuccess: onClose })}
      submitLabel="Save"
      busy={update.isPending}
    >
      <Field label="Name">
        <Input value={user.name} readOnly />
      </Field>
      <Field label="Email">
        <Input value={user.email ?? ''} readOnly />
      </Field>
      <SelectField<EditUserForm> name="role" label="Role" options={ROLE_OPTIONS} required />
      <SwitchField<EditUserForm> name="active" label="Active" hint="Inactive users cannot sign in." />
      <UserSecurity user={user} />
    </FormDialog>
  );
}
