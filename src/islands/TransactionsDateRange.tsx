import { useStore } from '@nanostores/react';
import DateRangePicker from '../components/DateRangePicker.tsx';
import { chooseRange, chosenRange, currentRange } from './stores/date-range.ts';

/** The date range of the Dashboard and the Recipients tab (spec core §2); a new range reloads what depends on it. */
export default function TransactionsDateRange() {
  const $chosen = useStore(chosenRange);
  return <DateRangePicker range={currentRange($chosen)} onChange={chooseRange} testId="date-range" />;
}
