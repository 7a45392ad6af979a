import { useId, useState } from 'react';
import { Button, Field, Input, makeStyles, Text, tokens } from '@fluentui/react-components';
import { DatePicker } from '@fluentui/react-datepicker-compat';
import { absoluteRange, type AbsoluteTimeRange } from '../../lib/time-range';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  row: { display: 'grid', gridTemplateColumns: '1fr 104px', gap: tokens.spacingHorizontalS, alignItems: 'end' },
  actions: { display: 'flex', justifyContent: 'flex-end', gap: tokens.spacingHorizontalS, marginTop: tokens.spacingVerticalXS },
  error: { color: tokens.colorPaletteRedForeground1 },
});

const pad = (n: number) => String(n).padStart(2, '0');
const timeOf = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}`;
const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

function combine(date: Date | null, time: string): Date | null {
  if (!date) return null;
  const [h, m] = time.split(':').map(Number);
  const d = new Date(date);
  d.setHours(Number.isFinite(h) ? h : 0, Number.isFinite(m) ? m : 0, 0, 0);
  return d;
}

export interface AbsoluteRangeFormProps {
  initial?: AbsoluteTimeRange;
  onSubmit: (range: AbsoluteTimeRange) => void;
}

/** From and To, each a calendar date and a time; Submit only once both are set (spec 001 §4). */
export function AbsoluteRangeForm({ initial, onSubmit }: AbsoluteRangeFormProps) {
  const s = useStyles();
  const ids = { fromTime: useId(), toTime: useId() };
  const start = initial ? new Date(initial.from) : null;
  const end = initial ? new Date(initial.to) : null;
  const [fromDate, setFromDate] = useState<Date | null>(start);
  const [fromTime, setFromTime] = useState(start ? timeOf(start) : '00:00');
  const [toDate, setToDate] = useState<Date | null>(end);
  const [toTime, setToTime] = useState(end ? timeOf(end) : '23:59');

  const from = combine(fromDate, fromTime);
  const to = combine(toDate, toTime);
  const reversed = !!from && !!to && from.getTime() > to.getTime();

  const clear = () => {
    setFromDate(null);
    setToDate(null);
    setFromTime('00:00');
    setToTime('23:59');
  };

  return (
    <div className={s.root}>
      <div className={s.row}>
        <Field label="From">
          {/* inline: the calendar stays inside the picker's popover, so choosing a day does not close it */}
          <DatePicker
            inlinePopup
            value={fromDate}
            onSelectDate={(d) => setFromDate(d ?? null)}
            formatDate={(d) => (d ? dateFormat.format(d) : '')}
            placeholder="Start date"
            aria-label="From date"
            maxDate={toDate ?? undefined}
          />
        </Field>
        <Field label="Time">
          <Input id={ids.fromTime} type="time" aria-label="From time" value={fromTime} onChange={(_, d) => setFromTime(d.value)} />
        </Field>
      </div>
      <div className={s.row}>
        <Field label="To">
          <DatePicker
            inlinePopup
            value={toDate}
            onSelectDate={(d) => setToDate(d ?? null)}
            formatDate={(d) => (d ? dateFormat.format(d) : '')}
            placeholder="End date"
            aria-label="To date"
            minDate={fromDate ?? undefined}
          />
        </Field>
        <Field label="Time">
          <Input id={ids.toTime} type="time" aria-label="To time" value={toTime} onChange={(_, d) => setToTime(d.value)} />
        </Field>
      </div>
      {reversed && (
        <Text size={200} className={s.error} role="alert">
          From must be before To
        </Text>
      )}
      <div className={s.actions}>
        <Button appearance="secondary" onClick={clear}>
          Clear
        </Button>
        <Button appearance="primary" disabled={!from || !to || reversed} onClick={() => from && to && onSubmit(absoluteRange(from, to))}>
          Submit
        </Button>
      </div>
    </div>
  );
}
