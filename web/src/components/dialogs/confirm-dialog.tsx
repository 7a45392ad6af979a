import type { ReactNode } from 'react';
import { Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { AppDialog, type DialogSize } from '../app-dialog';

const useStyles = makeStyles({
  danger: {
    backgroundColor: tokens.colorStatusDangerBackground3,
    color: tokens.colorNeutralForegroundOnBrand,
    ':hover': { backgroundColor: tokens.colorStatusDangerForeground1, color: tokens.colorNeutralForegroundOnBrand },
    ':hover:active': { backgroundColor: tokens.colorStatusDangerForeground2, color: tokens.colorNeutralForegroundOnBrand },
  },
  description: { color: tokens.colorNeutralForeground2 },
});

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** What will happen, in a sentence the user can act on. */
  description: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  /** A destructive action: the confirm button turns red. */
  danger?: boolean;
  /** The action is running: the confirm button spins and both buttons wait. */
  busy?: boolean;
  /** The label while busy (default: the confirm label with an ellipsis). */
  busyLabel?: string;
  size?: DialogSize;
  /** The button that gets focus when the dialog opens (default: the title bar's Close button, as Fluent does). */
  initialFocus?: 'confirm' | 'cancel';
  onConfirm: () => void;
  /** Cancel, Escape and the close button. */
  onCancel: () => void;
}

/**
 * The one "are you sure?" dialog. The caller closes it when the action succeeds (usually a mutation's
 * onSuccess), so a failure leaves it open with the error toast beside it.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel = 'Confirm',
  cancelLabel = 'Cancel',
  danger,
  busy,
  busyLabel,
  size = 'small',
  initialFocus,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const s = useStyles();
  return (
    <AppDialog
      open={open}
      // Escape and the close button cancel, but not while the action runs: its result would have nowhere to go
      onOpenChange={(next) => {
        if (!next && !busy) onCancel();
      }}
      title={title}
      size={size}
      initialFocus={initialFocus && `[data-confirm-action="${initialFocus}"]`}
      actions={
        <>
          <Button appearance="secondary" onClick={onCancel} disabled={busy} data-confirm-action="cancel">
            {cancelLabel}
          </Button>
          <Button
            appearance="primary"
            data-confirm-action="confirm"
            className={danger ? s.danger : undefined}
            onClick={onConfirm}
            // focusable while busy, so focus does not fall out of the dialog mid-action
            disabledFocusable={busy}
            icon={busy ? <Spinner size="tiny" /> : undefined}
          >
            {busy ? (busyLabel ?? `${confirmLabel}…`) : confirmLabel}
          </Button>
        </>
      }
    >
      {typeof description === 'string' ? <Text className={s.description}>{description}</Text> : description}
    </AppDialog>
  );
}
