import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api-client';

// whoami holds the signed-in user's name (the auth feature's key; features do not import each other)
const SESSION_KEY = ['auth', 'whoami'] as const;

const name = (what: string) =>
  z.string().trim().min(1, `Please provide valid ${what} name`).max(100, `Please provide valid ${what} name`);

/** Your Profile → name. */
export const ProfileForm = z.object({ firstName: name('first'), lastName: name('last') });
export type ProfileForm = z.infer<typeof ProfileForm>;

/** Your Profile → password; the new one follows the registration rule (8 characters or more). */
export const PasswordForm = z
  .object({
    currentPassword: z.string().min(1, 'Please provide your current password').max(1024),
    newPassword: z.string().min(8, 'password must be at least 8 characters').max(1024, 'password is too long'),
    confirmPassword: z.string(),
  })
  .refine((v) => v.newPassword === v.confirmPassword, { path: ['confirmPassword'], error: 'Passwords do not match' });
export type PasswordForm = z.infer<typeof PasswordForm>;

/** Changes your first and last name; the shell's greeting follows. Errors show in the form, not as toasts. */
export function useUpdateProfile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (form: ProfileForm) => api.patch('/api/auth/profile', form),
    onSuccess: () => qc.invalidateQueries({ queryKey: SESSION_KEY }),
    meta: { silent: true },
  });
}

/** Changes your password; the current one must be right. */
export function useChangePassword() {
  return useMutation({
    mutationFn: (form: PasswordForm) =>
      api.post('/api/auth/password', { current_password: form.currentPassword, new_password: form.newPassword }),
    meta: { silent: true },
  });
}
