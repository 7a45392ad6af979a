import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { formatDateTime } from '../../lib/format';
import { rangeMinutes, resolveTimeRange } from '../../lib/time-range';
import { RefreshRateSelector, useRefreshRate } from '../refresh-rate/refresh-rate-selector';
import { TimeRangePicker, useTimeRangeParam } from '../time-range/time-range-picker';
import { GallerySection } from './section';

const useStyles = makeStyles({
  row: { display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: tokens.spacingHorizontalM },
  muted: { color: tokens.colorNeutralForeground3 },
});

export function TimeSection() {
  const s = useStyles();
  const [range, setRange] = useTimeRangeParam();
  const minutes = rangeMinutes(range);
  const refresh = useRefreshRate('kit.refreshRate', minutes);
  const { from, to } = resolveTimeRange(range);
  return (
    <GallerySection
      id="time"
      title="Time range and refresh rate"
      description="The range lives in the URL (rangeType, display, from, to, range); the refresh rate is saved in this browser and its short intervals switch off for long ranges."
    >
      <div className={s.row}>
        <TimeRangePicker value={range} onChange={setRange} />
        <RefreshRateSelector value={refresh.chosen} onChange={refresh.setRate} rangeMinutes={minutes} />
      </div>
      <Text size={200} className={s.muted}>
        {formatDateTime(from)} → {formatDateTime(to)} · {Math.round(minutes).toLocaleString()} minutes ·{' '}
        {refresh.interval ? `refreshing every ${refresh.interval / 1000}s` : 'not refreshing'}
      </Text>
    </GallerySection>
  );
}
