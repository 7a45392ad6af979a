import { useState } from 'react';
import { Button, Card, makeStyles, Text, tokens } from '@fluentui/react-components';
import type { CheckSummary } from '@contracts/health';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { Age } from '../../../components/status/age';
import { CheckName } from './check-name';
import { LatencyText, UptimeCell } from './check-facts';

const useStyles = makeStyles({
  grid: {
    display: 'grid',
    gridTemplateColumns: 'repeat(auto-fill, minmax(260px, 1fr))',
    gap: tokens.spacingHorizontalM,
    alignContent: 'start',
  },
  card: { minWidth: 0, gap: tokens.spacingVerticalS },
  top: { display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: tokens.spacingHorizontalS, minWidth: 0 },
  facts: { display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: tokens.spacingHorizontalM, rowGap: tokens.spacingVerticalXXS, alignItems: 'center' },
  key: { color: tokens.colorNeutralForeground3 },
  more: { gridColumn: '1 / -1', justifySelf: 'center', marginTop: tokens.spacingVerticalM },
  empty: { padding: tokens.spacingVerticalXXL, textAlign: 'center', color: tokens.colorNeutralForeground3 },
});

/** Cards render in slices: 10,000 cards at once would stall the page. */
const SLICE = 120;

export function CheckCards({ checks, emptyMessage, onOpen }: { checks: CheckSummary[]; emptyMessage: string; onOpen: (c: CheckSummary) => void }) {
  const s = useStyles();
  const [shown, setShown] = useState(SLICE);
  if (!checks.length) return <Text role="status" className={s.empty} block>{emptyMessage}</Text>;
  return (
    <div className={s.grid} role="list" aria-label="Health checks">
      {checks.slice(0, shown).map((c) => (
        <Card
          key={c.id}
          role="listitem"
          className={s.card}
          size="small"
          focusMode="off"
          tabIndex={0}
          aria-label={`${c.name}, ${c.status ?? 'unknown'}`}
          onClick={() => onOpen(c)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && e.currentTarget === e.target) onOpen(c);
          }}
          style={{ cursor: 'pointer' }}
        >
          <div className={s.top}>
            <CheckName check={c} />
            <HealthIndicator health={c.status} />
          </div>
          <div className={s.facts}>
            <Text size={200} className={s.key}>Uptime</Text>
            <UptimeCell check={c} />
            <Text size={200} className={s.key}>Latency</Text>
            <LatencyText check={c} />
            <Text size={200} className={s.key}>Transition</Text>
            <Text size={200}><Age value={c.last_transition_time ?? null} /></Text>
          </div>
        </Card>
      ))}
      {checks.length > shown && (
        <Button className={s.more} onClick={() => setShown((n) => n + SLICE * 4)}>
          Show more ({checks.length - shown} left)
        </Button>
      )}
    </div>
  );
}
