import { useCallback, useMemo, useState } from 'react';
import {
  Button,
  Divider,
  makeStyles,
  mergeClasses,
  Popover,
  PopoverSurface,
  PopoverTrigger,
  Tab,
  TabList,
  Text,
  tokens,
} from '@fluentui/react-components';
import { CalendarLtr20Regular, ChevronDown16Regular, History16Regular } from '@fluentui/react-icons';
import { useSearchPatch } from '../../lib/url-state';
import {
  DEFAULT_TIME_RANGE,
  FUTURE_PRESETS,
  loadRecentRanges,
  PAST_PRESETS,
  QUICK_RANGES,
  rememberRecentRange,
  sameTimeRange,
  timeRangeFromParams,
  timeRangeLabel,
  timeRangeToParams,
  type AbsoluteTimeRange,
  type TimeRange,
} from '../../lib/time-range';
import { AbsoluteRangeForm } from './absolute-range-form';

const useStyles = makeStyles({
  surface: { padding: 0, width: '620px', maxWidth: 'calc(100vw - 32px)' },
  layout: { display: 'grid', gridTemplateColumns: '1fr 220px' },
  absolute: { padding: tokens.spacingHorizontalL, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  heading: { fontWeight: tokens.fontWeightSemibold },
  recent: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS },
  presets: {
    borderLeft: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    display: 'flex',
    flexDirection: 'column',
    minHeight: 0,
  },
  list: { overflowY: 'auto', maxHeight: '320px', padding: tokens.spacingVerticalXS, display: 'flex', flexDirection: 'column' },
  item: { justifyContent: 'flex-start', fontWeight: tokens.fontWeightRegular, minWidth: 0 },
  active: { backgroundColor: tokens.colorBrandBackground2, color: tokens.colorBrandForeground2 },
  trigger: { fontWeight: tokens.fontWeightRegular },
  muted: { color: tokens.colorNeutralForeground3 },
});

type PresetTab = 'past' | 'future' | 'quick';

export interface TimeRangePickerProps {
  value: TimeRange;
  onChange: (range: TimeRange) => void;
  /** Offer the "Next …" presets (silences, schedules); off for history screens. */
  showFuture?: boolean;
  /** Names the trigger for assistive technology (default "Time range"). */
  label?: string;
}

/**
 * Relative presets (past, future, quick ranges) on the right, an absolute From/To with calendars and the last five
 * absolute ranges on the left (spec 001 §2 "Time-range picker").
 */
export function TimeRangePicker({ value, onChange, showFuture = true, label = 'Time range' }: TimeRangePickerProps) {
  const s = useStyles();
  const [open, setOpen] = useState(false);
  const [tab, setTab] = useState<PresetTab>('past');
  const [recent, setRecent] = useState<AbsoluteTimeRange[]>([]);

  const choose = (range: TimeRange) => {
    if (range.type === 'absolute') setRecent(rememberRecentRange(range));
    onChange(range);
    setOpen(false);
  };
  const presets = tab === 'past' ? PAST_PRESETS : tab === 'future' ? FUTURE_PRESETS : QUICK_RANGES;

  return (
    <Popover
      open={open}
      onOpenChange={(_, d) => {
        setOpen(d.open);
        if (d.open) setRecent(loadRecentRanges());
      }}
      positioning="below-end"
      trapFocus
    >
      <PopoverTrigger disableButtonEnhancement>
        <Button
          className={s.trigger}
          icon={<CalendarLtr20Regular />}
          iconPosition="before"
          aria-label={`${label}: ${timeRangeLabel(value)}`}
        >
          {timeRangeLabel(value)}
          <ChevronDown16Regular style={{ marginInlineStart: tokens.spacingHorizontalXS }} />
        </Button>
      </PopoverTrigger>
      <PopoverSurface className={s.surface} aria-label={label}>
        <div className={s.layout}>
          <div className={s.absolute}>
            <Text className={s.heading}>Absolute time range</Text>
            <AbsoluteRangeForm initial={value.type === 'absolute' ? value : undefined} onSubmit={choose} />
            <Divider />
            <Text className={s.heading}>Recently used absolute ranges</Text>
            <div className={s.recent}>
              {recent.length === 0 && (
                <Text size={200} className={s.muted}>
                  Ranges you submit appear here.
                </Text>
              )}
              {recent.map((r) => (
                <Button key={`${r.from}-${r.to}`} size="small" appearance="subtle" icon={<History16Regular />} className={s.item} onClick={() => choose(r)}>
                  {timeRangeLabel(r)}
                </Button>
              ))}
            </div>
          </div>
          <div className={s.presets}>
            <TabList size="small" selectedValue={tab} onTabSelect={(_, d) => setTab(d.value as PresetTab)}>
              <Tab value="past">Past</Tab>
              {showFuture && <Tab value="future">Future</Tab>}
              <Tab value="quick">Quick</Tab>
            </TabList>
            <div className={s.list} role="listbox" aria-label={tab === 'quick' ? 'Quick ranges' : `${tab === 'past' ? 'Past' : 'Future'} ranges`}>
              {presets.map((p) => {
                const selected = sameTimeRange(p, value);
                return (
                  <Button
                    key={p.display}
                    role="option"
                    aria-selected={selected}
                    size="small"
                    appearance="subtle"
                    className={mergeClasses(s.item, selected && s.active)}
                    onClick={() => choose(p)}
                  >
                    {p.display}
                  </Button>
                );
              })}
            </div>
          </div>
        </div>
      </PopoverSurface>
    </Popover>
  );
}

/**
 * The page's time range, kept in the URL (`rangeType`, `display`, `from`, `to`, `range`; `timeRange` is read too),
 * with the spec's default of the last 2 days.
 */
export function useTimeRangeParam(fallback: TimeRange = DEFAULT_TIME_RANGE): [TimeRange, (range: TimeRange) => void] {
  const [params, patch] = useSearchPatch();
  const range = useMemo(() => timeRangeFromParams(params, fallback), [params, fallback]);
  const set = useCallback((next: TimeRange) => patch(timeRangeToParams(next), { replace: false }), [patch]);
  return [range, set];
}
