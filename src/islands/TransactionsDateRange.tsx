import DateRangePicker from '../components/DateRangePicker.tsx';
import { useHydrated, useIslandStore } from '../lib/island-hooks.ts';
import { chooseRange, chosenRange, currentRange } from '../stores/date-range.ts';

/**
 * The date range of the Dashboard and the Recipients tab (docs/console.md §2); a new range reloads what
 * depends on it. `today` is the server's UTC day: while hydrating, the default range ends on it, as
 * in the HTML the server sent (a page rendered just before midnight UTC hydrates just after it);
 * then on the browser's day, which the loads use.
 */
export default function TransactionsDateRange({ today }: { today: string }) {
  const $chosen = useIslandStore(chosenRange);
  const hydrated = useHydrated();
  return (
    <DateRangePicker
      range={currentRange($chosen, hydrated ? undefined : today)}
      onChange={chooseRange}
      testId="date-range"
    />
  );
}
