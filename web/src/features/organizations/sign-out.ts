import { useLocation } from 'wouter';
import { useLogout } from '../../features/auth/api';
import { paths } from '../../app/paths';

/**
 * Sign out, then to the provider's end-session page when the server offers one (hosted mode's RP-initiated logout
 * answers `{logout_url}`), else to /login.
 */
export function useSignOut() {
  const [, navigate] = useLocation();
  const logout = useLogout();
  const signOut = () => {
    const toLogin = () => navigate(paths.login, { replace: true });
    logout.mutateAsync().then((answer) => {
      const url = (answer as { logout_url?: unknown } | undefined)?.logout_url;
      if (typeof url === 'string' && url) window.location.assign(url);
      else toLogin();
    }, toLogin);
  };
  return { signOut, pending: logout.isPending };
}
