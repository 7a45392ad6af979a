import { Button } from '@fluentui/react-components';
import { Link, useLocation } from 'wouter';
import { ToggleLeft24Regular, LockClosed24Regular, CompassNorthwest24Regular, Wrench24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../components/empty-state';
import { Page } from '../../components/page';
import { paths } from '../paths';
import { useSession } from '../session-context';
import { homeEntry, homePath } from '../shell/nav-items';

export const NOT_AVAILABLE_TEXT = 'Not available in this version';
export const UNAUTHORIZED_TEXT = 'Unauthorized - You do not have permission to access this page';

/**
 * The way out of a status page: to the landing page, named after it ("Go to Health" while the dashboard is not
 * built). Left out where the landing page is this very page, so no button leads to the page it is on.
 */
function HomeButton() {
  const session = useSession();
  const [location] = useLocation();
  const target = homePath(session);
  if (target === location) return null;
  const entry = homeEntry(session);
  const name = !entry ? 'your profile' : entry.href === paths.topology ? 'the dashboard' : entry.label;
  return (
    <Link href={target} asChild>
      <Button as="a" appearance="secondary">
        Go to {name}
      </Button>
    </Link>
  );
}

const home = <HomeButton />;

/** The one honest page for a route whose feature is not built yet: never a fake screen. */
export function NotAvailablePage({ title }: { title: string }) {
  return (
    <Page title={title}>
      <EmptyState
        icon={<Wrench24Regular />}
        title={NOT_AVAILABLE_TEXT}
        description={`${title} is planned but not part of this release of the console yet.`}
        actions={home}
      />
    </Page>
  );
}

export function UnauthorizedPage({ title }: { title: string }) {
  return (
    <Page title={title}>
      <EmptyState
        icon={<LockClosed24Regular />}
        title={UNAUTHORIZED_TEXT}
        description="Ask an administrator for a role that includes this area."
        actions={home}
        role="alert"
      />
    </Page>
  );
}

export function FeatureDisabledPage({ title }: { title: string }) {
  return (
    <Page title={title}>
      <EmptyState
        icon={<ToggleLeft24Regular />}
        title={`${title} is turned off`}
        description="An administrator disabled this feature in Feature Flags."
        actions={home}
      />
    </Page>
  );
}

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <EmptyState
        icon={<CompassNorthwest24Regular />}
        title="Page not found"
        description="There is nothing at this address. Check the link, or start again from the landing page."
        actions={home}
      />
    </Page>
  );
}
