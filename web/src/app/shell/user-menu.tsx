import { lazy, Suspense, useEffect, useState } from 'react';
import { Avatar, Button, Menu, MenuPopover, MenuTrigger, Spinner } from '@fluentui/react-components';
import { useSession } from '../session-context';

// The menu's items and the kubeconfig dialog load on demand: a first paint shows only the avatar. The items are
// fetched once the browser is idle after start-up (or when the pointer/focus reaches the avatar), so the menu
// normally opens with them already there.
const loadMenuList = () => import('./user-menu-list');
const UserMenuList = lazy(() => loadMenuList().then((m) => ({ default: m.UserMenuList })));
const KubeconfigDialog = lazy(() => import('./kubeconfig-dialog').then((m) => ({ default: m.KubeconfigDialog })));

function whenIdle(run: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(run, { timeout: 2_000 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(run, 200);
  return () => clearTimeout(id);
}

/** Avatar menu: greeting, profile, kubeconfig, versions, sign out. */
export function UserMenu() {
  const session = useSession();
  const [kubeconfig, setKubeconfig] = useState(false);
  // mounted from the first opening on, so the dialog's closing animation still plays
  const [kubeconfigUsed, setKubeconfigUsed] = useState(false);
  const name = session.user.name || session.user.email || 'there';
  const openKubeconfig = () => {
    setKubeconfigUsed(true);
    setKubeconfig(true);
  };
  useEffect(() => whenIdle(() => void loadMenuList()), []);

  return (
    <>
      <Menu positioning="below-end">
        <MenuTrigger disableButtonEnhancement>
          <Button
            appearance="subtle"
            aria-label={`Account: ${name}`}
            shape="circular"
            style={{ minWidth: 0, padding: 2 }}
            onPointerEnter={() => void loadMenuList()}
            onFocus={() => void loadMenuList()}
          >
            <Avatar name={name} size={28} color="brand" />
          </Button>
        </MenuTrigger>
        <MenuPopover>
          <Suspense fallback={<Spinner size="tiny" label="Loading…" />}>
            <UserMenuList name={name} onKubeconfig={openKubeconfig} />
          </Suspense>
        </MenuPopover>
      </Menu>
      {kubeconfigUsed && (
        <Suspense fallback={null}>
          <KubeconfigDialog open={kubeconfig} onOpenChange={setKubeconfig} />
        </Suspense>
      )}
    </>
  );
}
