import { Tab, TabList, makeStyles, tokens } from '@fluentui/react-components';
import { useLocation } from 'wouter';

/** The catalog's four screens, in the order spec 001 §2 lists them. */
export const CATALOG_TABS = [
  { value: 'catalog', label: 'Catalog', href: '/catalog' },
  { value: 'changes', label: 'Changes', href: '/catalog/changes' },
  { value: 'insights', label: 'Insights', href: '/catalog/insights' },
  { value: 'scrapers', label: 'Scrapers', href: '/catalog/scrapers' },
] as const;

export type CatalogTab = (typeof CATALOG_TABS)[number]['value'];

const useStyles = makeStyles({ tabs: { marginBottom: tokens.spacingVerticalM } });

/** The tab bar over /catalog, /catalog/changes, /catalog/insights and /catalog/scrapers; each tab is a link. */
export function CatalogTabs({ selected }: { selected: CatalogTab }) {
  const s = useStyles();
  const [, navigate] = useLocation();
  return (
    <TabList
      className={s.tabs}
      selectedValue={selected}
      aria-label="Catalog"
      onTabSelect={(_, d) => {
        const tab = CATALOG_TABS.find((t) => t.value === d.value);
        if (tab && tab.value !== selected) navigate(tab.href);
      }}
    >
      {CATALOG_TABS.map((t) => (
        <Tab key={t.value} value={t.value}>{t.label}</Tab>
      ))}
    </TabList>
  );
}
