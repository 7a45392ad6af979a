import { useEffect, useRef, useState } from 'react';
import { Button, Field, Input, makeStyles, MessageBar, MessageBarBody, Text, tokens } from '@fluentui/react-components';
import { Copy20Regular } from '@fluentui/react-icons';
import { InviteUserRequest } from '@contracts/auth';
import { ROLES } from '@contracts/rbac';
import { AppDialog } from '../../../components/app-dialog';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { SelectField, TextField } from '../../../components/forms/form-fields';
import { copyToClipboard } from '../../../lib/clipboard';
import { formatDateTime } from '../../../lib/format';
import { useInviteUser } from '../api';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM },
  muted: { color: tokens.colorNeutralForeground2 },
});

type Invite = { link: string; expires_at: string; name: string; email: string };

const EMPTY = { firstName: '', lastName: '', email: '', role: '' as InviteUserRequest['role'] };
const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: r }));

/** Invite User: the form, then the link to hand the new user (spec 001, "Settings screens"). */
export function InviteUserDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const s = useStyles();
  const invite = useInviteUser();
  const [sent, setSent] = useState<Invite | null>(null);
  const linkRef = useRef<HTMLInputElement>(null);
  const form = useZodForm(InviteUserRequest, EMPTY);

  // a new invite starts empty
  useEffect(() => {
    if (!open) return;
    setSent(null);
    form.reset(EMPTY);
    invite.reset();
    // Fluent's Dialog focuses its first focusable element (the close button) once open: move on to the first field
    const timer = setTimeout(() => form.setFocus('firstName'));
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  // the Invite button that had focus is gone: hand focus to the link, selected and ready to copy
  useEffect(() => {
    if (sent) linkRef.current?.focus();
  }, [sent]);

  const onSubmit = (body: InviteUserRequest) =>
    invite.mutate(body, { onSuccess: (answer) => setSent({ ...answer, name: body.firstName, email: body.email }) });

  if (sent) {
    return (
      <AppDialog
        open={open}
        onOpenChange={onOpenChange}
        title="Invite User"
        size="small"
        actions={
          <>
            <Button appearance="secondary" onClick={() => onOpenChange(false)}>
              Done
            </Button>
            <Button
              appearance="primary"
              icon={<Copy20Regular />}
              onClick={() => void copyToClipboard(sent.link, 'Link copied to clipboard')}
            >
              Copy link
            </Button>
          </>
        }
      >
        <div className={s.body}>
          <MessageBar intent="success">
            <MessageBarBody>Invitation created for {sent.email}.</MessageBarBody>
          </MessageBar>
          <Field
            label="Invite link"
            hint={`Share it with ${sent.name}; it works once, until ${formatDateTime(sent.expires_at)}.`}
          >
            <Input ref={linkRef} readOnly value={sent.link} onFocus={(e) => e.target.select()} />
          </Field>
        </div>
      </AppDialog>
    );
  }

  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Invite User"
      form={form}
      onSubmit={onSubmit}
      submitLabel="Invite"
      busy={invite.isPending}
      busyLabel="Inviting…"
    >
      <Text className={s.muted}>The new user gets a link to choose a password and sign in.</Text>
      <div className={s.row}>
        <TextField<InviteUserRequest> name="firstName" label="First name" required />
        <TextField<InviteUserRequest> name="lastName" label="Last name" required />
      </div>
      <TextField<InviteUserRequest> name="email" label="Email" type="email" required />
      <SelectField<InviteUserRequest>
        name="role"
        label="Role"
        options={ROLE_OPTIONS}
        placeholder="Select a role"
        required
      />
    </FormDialog>
  );
}
