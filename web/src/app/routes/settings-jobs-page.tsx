import { JobHistory } from '../../features/jobs/components/job-history';
import { RESOURCE_TABLES } from '../../features/jobs/model';
import { pathTo, paths } from '../paths';

/** A run's resource opens its settings page (canary, topology, config_scraper); other kinds have none. */
function resourceHref(type: string, id: string): string | null {
  const table = RESOURCE_TABLES[type];
  return table ? pathTo(paths.settingsTableItem, { table, id }) : null;
}

/** /settings/jobs */
export function SettingsJobsPage() {
  return <JobHistory resourceHref={resourceHref} />;
}
