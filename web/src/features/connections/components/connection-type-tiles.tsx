import { useMemo, useState } from 'react';
import { Button, Input, makeStyles, Text, tokens } from '@fluentui/react-components';
import { Search20Regular } from '@fluentui/react-icons';
import { selectableConnectionTypes, type ConnectionTypeDescriptor } from '@contracts/connections';
import { ConnectionIcon } from './connection-icon';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  grid: {
    display: 'grid',
    gridTemplateColumns: 'repeat(auto-fill, minmax(150px, 1fr))',
    gap: tokens.spacingHorizontalS,
    listStyleType: 'none',
    margin: 0,
    padding: 0,
  },
  tile: { width: '100%', height: '56px', justifyContent: 'flex-start', textAlign: 'start', gap: tokens.spacingHorizontalS, fontWeight: tokens.fontWeightRegular },
  section: { color: tokens.colorNeutralForeground2, fontWeight: tokens.fontWeightSemibold },
  none: { color: tokens.colorNeutralForeground3, padding: tokens.spacingVerticalM },
});

/** 'Select Connection Type': every type but the hidden ones, as tiles, filtered by what is typed. */
export function ConnectionTypeTiles({ onSelect }: { onSelect: (desc: ConnectionTypeDescriptor) => void }) {
  const s = useStyles();
  const [search, setSearch] = useState('');
  const all = useMemo(() => selectableConnectionTypes(), []);
  const q = search.trim().toLowerCase();
  const shown = all.filter((t) => !q || t.label.toLowerCase().includes(q) || t.type.includes(q));
  const groups: [string, ConnectionTypeDescriptor[]][] = [
    ['Systems', shown.filter((t) => !t.notification)],
    ['Notifications', shown.filter((t) => t.notification)],
  ];

  return (
    <div className={s.root}>
      <Input
        aria-label="Search connection types"
        placeholder="Search"
        contentBefore={<Search20Regular />}
        value={search}
        onChange={(_, d) => setSearch(d.value)}
      />
      {shown.length === 0 && (
        <Text role="status" className={s.none}>
          No connection type matches “{search}”
        </Text>
      )}
      {groups
        .filter(([, list]) => list.length > 0)
        .map(([title, list]) => (
          <section key={title} aria-label={title}>
            <Text as="h3" size={300} className={s.section}>
              {title}
            </Text>
            <ul className={s.grid}>
              {list.map((t) => (
                <li key={t.type}>
                  <Button className={s.tile} icon={<ConnectionIcon icon={t.icon} />} onClick={() => onSelect(t)}>
                    {t.label}
                  </Button>
                </li>
              ))}
            </ul>
          </section>
        ))}
    </div>
  );
}
