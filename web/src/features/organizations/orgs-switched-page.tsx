import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { FullPageState } from '../../components/full-page-state';
import { paths } from '../../app/paths';

/**
 * /organizations/orgs-switched (spec 000 §2), outside the session gate: every cached answer belonged to the other
 * organisation's roles, so the cache is dropped before going home, where the gate loads the session afresh.
 */
export function OrgsSwitchedPage() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  useEffect(() => {
    qc.clear();
    navigate(paths.home, { replace: true });
  }, [qc, navigate]);
  return <FullPageState busy="Switching organization…" />;
}
