import { lazy, Suspense, useState } from 'react';
import { Button, makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { DeferredMenu } from '../../components/menus/deferred-menu';
import { useSession } from '../session-context';

// The menu's items and the kubeconfig dialog load on demand: a first paint shows only the avatar. The items are
// fetched once the browser is idle after start-up (or when the pointer/focus reaches the avatar), so the menu
// normally opens with them already there.
const loadMenuList = () => import('./user-menu-list');
const UserMenuList = lazy(() => loadMenuList().then((m) => ({ default: m.UserMenuList })));
const KubeconfigDialog = lazy(() => import('./kubeconfig-dialog').then((m) => ({ default: m.KubeconfigDialog })));

const useStyles = makeStyles({
  // Fluent's brand Avatar at 28 px, drawn here: the avatar component (about 5 kB gzip of styles) for two letters
  avatar: {
    display: 'inline-flex',
    alignItems: 'center',
    justifyContent: 'center',
    width: '28px',
    height: '28px',
    borderRadius: tokens.borderRadiusCircular,
    backgroundColor: tokens.colorBrandBackground,
    color: tokens.colorNeutralForegroundOnBrand,
    fontFamily: tokens.fontFamilyBase,
    fontSize: tokens.fontSizeBase200,
    fontWeight: tokens.fontWeightSemibold,
    lineHeight: 1,
    userSelect: 'none',
  },
});

/** "Ada Lovelace" → "AL", "ada@example.com" → "A". */
export function initials(name: string): string {
  const words = name.replace(/@.*$/, '').split(/[\s._-]+/).filter((w) => /^\p{L}/u.test(w));
  if (!words.length) return '';
  const first = words[0][0];
  const last = words.length > 1 ? words[words.length - 1][0] : '';
  return (first + last).toUpperCase();
}

/** Avatar menu: greeting, profile, kubeconfig, versions, sign out. */
export function UserMenu() {
  const s = useStyles();
  const session = useSession();
  const [kubeconfig, setKubeconfig] = useState(false);
  // mounted from the first opening on, so the dialog's closing animation still plays
  const [kubeconfigUsed, setKubeconfigUsed] = useState(false);
  const name = session.user.name || session.user.email || 'there';
  const openKubeconfig = () => {
    setKubeconfigUsed(true);
    setKubeconfig(true);
  };
  return (
    <>
      <DeferredMenu
        preload={loadMenuList}
        trigger={(props) => (
          <Button {...props} appearance="subtle" aria-label={`Account: ${name}`} shape="circular" style={{ minWidth: 0, padding: 2 }}>
            <span className={s.avatar} aria-hidden>
              {initials(name)}
            </span>
          </Button>
        )}
      >
        <Suspense fallback={<Spinner size="tiny" label="Loading…" />}>
          <UserMenuList name={name} onKubeconfig={openKubeconfig} />
        </Suspense>
      </DeferredMenu>
      {kubeconfigUsed && (
        <Suspense fallback={null}>
          <KubeconfigDialog open={kubeconfig} onOpenChange={setKubeconfig} />
        </Suspense>
      )}
    </>
  );
}
