import { Button } from '@fluentui/react-components';
import { Link } from 'wouter';
import { ToggleLeft24Regular, LockClosed24Regular, CompassNorthwest24Regular, Wrench24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../components/empty-state';
import { Page } from '../../components/page';
import { paths } from '../paths';

export const NOT_AVAILABLE_TEXT = 'Not available in this version';
export const UNAUTHORIZED_TEXT = 'Unauthorized - You do not have permission to access this page';

const home = (
  <Link href={paths.home} asChild>
    <Button as="a" appearance="secondary">
      Go to the dashboard
    </Button>
  </Link>
);

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
        description="There is nothing at this address. Check the link, or go back to the dashboard."
        actions={home}
      />
    </Page>
  );
}
