import { Link, useLocation } from 'wouter';
import { Button } from '@fluentui/react-components';
import { Add20Regular } from '@fluentui/react-icons';
import { Page } from '../../../components/page';
import { useCanaries } from '../api';
import { CanaryTable } from './canary-table';

export interface CanariesSettingsProps {
  /** Write on `canaries` (spec 001 §6): Add. */
  canWrite: boolean;
  canaryHref: (id: string) => string;
  newHref: string;
}

/** /settings/canaries: every health check definition; a row opens it. */
export function CanariesSettings({ canWrite, canaryHref, newHref }: CanariesSettingsProps) {
  const canaries = useCanaries();
  const [, navigate] = useLocation();
  return (
    <Page
      title="Health Checks"
      onRefresh={() => void canaries.refetch()}
      refreshing={canaries.isFetching}
      extra={
        canWrite && (
          <Link href={newHref} asChild>
            <Button as="a" appearance="primary" icon={<Add20Regular />}>
              Add Health Check
            </Button>
          </Link>
        )
      }
    >
      <CanaryTable
        canaries={canaries.data}
        loading={canaries.isLoading}
        error={canaries.error}
        onOpen={(c) => navigate(canaryHref(c.id))}
      />
    </Page>
  );
}
