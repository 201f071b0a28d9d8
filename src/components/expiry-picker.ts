// The expiry picker of the online attachment editor (docs/console-reports.md §5): one date with a time, 24 h
// with seconds, from now to one year from now. Imported on demand (when the expiry toggle is on),
// like the range picker, so flatpickr is not part of the page's first load.
import flatpickr from 'flatpickr';
import type { Instance } from 'flatpickr/dist/types/instance';
import { loadStylesheet } from './date-picker.ts';

export interface ExpiryPickerOptions {
  /** Unix seconds shown first. */
  value: number;
  onPick(unixSeconds: number): void;
}

// Every moment in the console is shown in UTC (src/lib/dates.ts); flatpickr works in the browser's
// zone, so it is handed dates whose local fields are the UTC ones, and read back the same way.
const utcAsLocal = (ms: number) => {
  const d = new Date(ms);
  return new Date(
    d.getUTCFullYear(),
    d.getUTCMonth(),
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  );
};
const localAsUtc = (d: Date) =>
  Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());

export function createExpiryPicker(input: HTMLInputElement, options: ExpiryPickerOptions): Instance {
  void loadStylesheet();
  const now = Date.now();
  const yearAhead = new Date(now);
  yearAhead.setUTCFullYear(yearAhead.getUTCFullYear() + 1);
  return flatpickr(input, {
    enableTime: true,
    enableSeconds: true,
    time_24hr: true,
    dateFormat: 'Y-m-d H:i:S',
    defaultDate: utcAsLocal(options.value * 1000),
    // a time that has passed while the page was open stays shown (with its message) rather than blank
    minDate: utcAsLocal(Math.min(now, options.value * 1000)),
    maxDate: utcAsLocal(yearAhead.getTime()),
    onChange(selected) {
      if (selected[0]) options.onPick(Math.floor(localAsUtc(selected[0]) / 1000));
    },
  });
}
