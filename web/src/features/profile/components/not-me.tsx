import { useQueryClient } from '@tanstack/react-query';
import { navigate } from 'wouter/use-browser-location';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { setCsrfToken } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { useNotMe } from '../api';

/**
 * "This wasn't me": after a confirmation, every session of yours ends (this one too) and the next sign-in asks for a
 * new password through account recovery. The tab goes to /login.
 */
export function NotMeDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const notMe = useNotMe();
  const qc = useQueryClient();
  return (
    <ConfirmDialog
      open={open}
      title="Secure your account?"
      description="Every session of yours ends, this one too. When your email is verified, your password is removed as well and you choose a new one through account recovery; otherwise change it as soon as you sign in again."
      confirmLabel="Sign out everywhere"
      danger
      busy={notMe.isPending}
      onCancel={onClose}
      onConfirm={() =>
        notMe.mutate(undefined, {
          onSuccess: (answer) => {
            toast.info(answer.message);
            setCsrfToken(null);
            qc.clear();
            navigate('/login', { replace: true });
          },
          onError: (err) => toast.error(err.message),
        })
      }
    />
  );
}
