import { useEffect, useId, useRef, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import {
  Button,
  Field,
  Input,
  makeStyles,
  MessageBar,
  MessageBarBody,
  Select,
  Spinner,
  Text,
  tokens,
} from '@fluentui/react-components';
import { Copy20Regular } from '@fluentui/react-icons';
import { InviteUserRequest } from '@contracts/auth';
import { ROLES } from '@contracts/rbac';
import { AppDialog } from '../../../components/app-dialog';
import { copyToClipboard } from '../../../lib/clipboard';
import { formatDateTime } from '../../../lib/format';
import { useInviteUser } from '../api';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM },
  muted: { color: tokens.colorNeutralForeground2 },
});

type Invite = { link: string; expires_at: string; name: string; email: string };

const EMPTY = { firstName: '', lastName: '', email: '', role: '' as InviteUserRequest['role'] };

/** Invite User: the form, then the link to hand the new user (spec 001, "Settings screens"). */
export function InviteUserDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const s = useStyles();
  const formId = useId();
  const invite = useInviteUser();
  const [sent, setSent] = useState<Invite | null>(null);
  const linkRef = useRef<HTMLInputElement>(null);
  const form = useForm({ resolver: zodResolver(InviteUserRequest), defaultValues: EMPTY, mode: 'onTouched' });
  const { errors } = form.formState;

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

  const onSubmit = form.handleSubmit((body) =>
    invite.mutate(body, {
      onSuccess: (answer) => setSent({ ...answer, name: body.firstName, email: body.email }),
    }),
  );
  const copy = () => sent && void copyToClipboard(sent.link, 'Link copied to clipboard');

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
            <Button appearance="primary" icon={<Copy20Regular />} onClick={copy}>
              Copy link
            </Button>
          </>
        }
      >
        <div className={s.form}>
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
    <AppDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Invite User"
      size="small"
      actions={
        <>
          <Button appearance="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button
            appearance="primary"
            type="submit"
            form={formId}
            disabled={invite.isPending}
            icon={invite.isPending ? <Spinner size="tiny" /> : undefined}
          >
            {invite.isPending ? 'Inviting…' : 'Invite'}
          </Button>
        </>
      }
    >
      <form id={formId} className={s.form} onSubmit={onSubmit} noValidate aria-label="Invite User">
        <Text className={s.muted}>The new user gets a link to choose a password and sign in.</Text>
        <div className={s.row}>
          <Field label="First name" required validationMessage={errors.firstName?.message}>
            <Controller
              control={form.control}
              name="firstName"
              render={({ field }) => (
                <Input
                  autoComplete="off"
                 
                  value={field.value}
                  onChange={(_, d) => field.onChange(d.value)}
                  onBlur={field.onBlur}
                  ref={field.ref}
                  name={field.name}
                />
              )}
            />
          </Field>
          <Field label="Last name" required validationMessage={errors.lastName?.message}>
            <Controller
              control={form.control}
              name="lastName"
              render={({ field }) => (
                <Input
                  autoComplete="off"
                  value={field.value}
                  onChange={(_, d) => field.onChange(d.value)}
                  onBlur={field.onBlur}
                  ref={field.ref}
                  name={field.name}
                />
              )}
            />
          </Field>
        </div>
        <Field label="Email" required validationMessage={errors.email?.message}>
          <Controller
            control={form.control}
            name="email"
            render={({ field }) => (
              <Input
                type="email"
                autoComplete="off"
                value={field.value}
                onChange={(_, d) => field.onChange(d.value)}
                onBlur={field.onBlur}
                ref={field.ref}
                name={field.name}
              />
            )}
          />
        </Field>
        <Field label="Role" required validationMessage={errors.role?.message}>
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
                <option value="" disabled>
                  Select a role
                </option>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </Select>
            )}
          />
        </Field>
      </form>
    </AppDialog>
  );
}
