// The date range of the Dashboard and of the Recipients tab (docs/console.md §2, §9): the last 29 days
// through today until the user picks another. Stores that depend on it listen to `chosenRange`.
import { atom } from 'nanostores';
import { type DayRange, defaultRange, rangeEndingOn } from '../lib/dates.ts';

/**
 * The range the user picked; null until then. The default is computed when read, so a server
 * process that runs for days never renders a stale "today".
 */
export const chosenRange = atom<DayRange | null>(null);

/** The range in effect; `today` ('YYYY-MM-DD', UTC) ends the default range, by default the clock's day. */
export function currentRange(chosen: DayRange | null = chosenRange.get(), today?: string): DayRange {
  return chosen ?? (today ? rangeEndingOn(today) : defaultRange(new Date()));
}

/** The picker chose a range; nothing happens when it is the one in effect. */
export function chooseRange(range: DayRange): void {
  const now = currentRange();
  if (range.start !== now.start || range.end !== now.end) chosenRange.set(range);
}
