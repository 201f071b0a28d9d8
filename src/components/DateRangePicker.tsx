// The date range field of the Dashboard and the Recipients tab (docs/console.md §2, §9): shows the range
// 'MMMM D, YYYY - MMMM D, YYYY'; the first click or focus loads flatpickr and opens its calendar.
// React alone writes this field (its value is the range prop): flatpickr works on an input of its
// own and only places its calendar by this one, so it never changes a node React renders (that broke
// hydration: "NotFoundError: removeChild", React #418).
import { useEffect, useRef } from 'react';
import type { Instance } from 'flatpickr/dist/types/instance';
import { type DayRange, formatRange, localDate, utcDay } from '../lib/dates.ts';
import LineIcon from './LineIcon.tsx';

interface Props {
  range: DayRange;
  onChange(range: DayRange): void;
  testId: string;
}

function CalendarIcon() {
  return (
    <LineIcon size={16} className="date-range-icon">
      <rect x="3" y="4" width="18" height="18" rx="2" />
      <line x1="16" y1="2" x2="16" y2="6" />
      <line x1="8" y1="2" x2="8" y2="6" />
      <line x1="3" y1="10" x2="21" y2="10" />
    </LineIcon>
  );
}

export default function DateRangePicker({ range, onChange, testId }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const picker = useRef<Instance | null>(null);
  const loading = useRef(false);
  // the handlers flatpickr keeps see the latest props
  const latest = useRef({ range, onChange });
  latest.current = { range, onChange };

  useEffect(() => {
    picker.current?.setDate([localDate(range.start), localDate(range.end)], false);
  }, [range.start, range.end]);

  useEffect(() => () => picker.current?.destroy(), []);

  function attach() {
    if (picker.current) {
      picker.current.open();
      return;
    }
    if (loading.current || !input.current) return;
    loading.current = true;
    const field = input.current;
    void import('./date-picker.ts')
      .then(async ({ createRangePicker, loadStylesheet }) => {
        await loadStylesheet();
        picker.current = createRangePicker(field, {
          current: () => latest.current.range,
          maxDay: utcDay(new Date()),
          onPick: (picked) => latest.current.onChange(picked),
        });
        // flatpickr sizes its two months in the next animation frame; opening after that places the
        // calendar by its real width
        const created = picker.current;
        requestAnimationFrame(() => created.open());
      })
      .finally(() => {
        loading.current = false;
      });
  }

  return (
    <div className="control date-range" data-testid={`${testId}-control`}>
      <CalendarIcon />
      <input
        ref={input}
        className="input"
        type="text"
        readOnly
        value={formatRange(range)}
        aria-label="Date range"
        onFocus={attach}
        onClick={attach}
        data-testid={testId}
      />
    </div>
  );
}
