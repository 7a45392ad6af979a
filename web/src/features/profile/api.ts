import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { ChangePasswordRequest, UpdateProfileRequest, UpdateProfileResponse } from '@contracts/auth';
import { api } from '../../lib/api-client';

// whoami holds the signed-in user's name (the auth feature's key; features do not import each other)
const SESSION_KEY = ['auth', 'whoami'] as const;

/** Your Profile → name: the server's contract, with its messages. */
export const ProfileForm = UpdateProfileRequest;
export type ProfileForm = z.infer<typeof ProfileForm>;

/** Your Profile → password: the server's rules for both passwords, plus the confirmation. */
export const PasswordForm = z
  .object({
    currentPassword: ChangePasswordRequest.shape.current_password,
    newPassword: ChangePasswordRequest.shape.new_password,
    confirmPassword: z.string(),
  })
  .refine((v) => v.newPassword === v.confirmPassword, { path: ['confirmPassword'], error: 'Passwords do not match' });
export type PasswordForm = z.infer<typeof PasswordForm>;

/** Changes your first and last name; the shell's greeting follows. Errors show in the form, not as toasts. */
export function useUpdateProfile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (form: ProfileForm) => api.patch('/api/auth/profile', form, { schema: UpdateProfileResponse }),
    onSuccess: () => qc.invalidateQueries({ queryKey: SESSION_KEY }),
    meta: { silent: true },
  });
}

/** Changes your password; the current one must be right. Other sessions end; this one stays. */
export function useChangePassword() {
  return useMutation({
    mutationFn: (form: PasswordForm) =>
      api.post('/api/auth/password', { current_password: form.currentPassword, new_password: form.newPassword }),
    meta: { silent: true },
  });
}
