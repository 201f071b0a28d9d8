// flatpickr as the range picker of the Dashboard and the Recipients tab (DESIGN.md: flatpickr for
// dates). Loaded on the first click or focus of a picker's field, never with the page: the page's
// JavaScript budget (≤ 100 KB gzipped) has no room for it up front.
import flatpickr from 'flatpickr';
import type { Instance } from 'flatpickr/dist/types/instance';
// as a URL, linked when the picker loads: a plain CSS import would be linked by every page whose
// islands can load this module, costing them 2.8 KB of their 30 KB stylesheet budget up front
import stylesheetUrl from 'flatpickr/dist/flatpickr.min.css?url';
import { type DayRange, dayOfLocalDate, localDate } from './dates.ts';

let stylesheet: Promise<void> | undefined;

/** Links flatpickr's stylesheet once; resolves when it has loaded (or failed: the picker works unstyled). */
export function loadStylesheet(): Promise<void> {
  stylesheet ??= new Promise((resolve) => {
    const link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: stylesheetUrl });
    link.addEventListener('load', () => resolve());
    link.addEventListener('error', () => resolve());
    document.head.append(link);
  });
  return stylesheet;
}

export interface RangePickerOptions {
  /** The range in effect when the picker closes without a complete new one. */
  current(): DayRange;
  /** The last day that can be picked (today). */
  maxDay: string;
  onPick(range: DayRange): void;
}

/** Attaches a range picker to `input`; it writes the range 'MMMM D, YYYY - MMMM D, YYYY' (spec core §9). */
export function createRangePicker(input: HTMLInputElement, options: RangePickerOptions): Instance {
  const dates = (r: DayRange) => [localDate(r.start), localDate(r.end)];
  // two months side by side, the range's last month on the right
  const showEnd = (picker: Instance) => {
    const end = localDate(options.current().end);
    picker.jumpToDate(new Date(end.getFullYear(), end.getMonth() - 1, 1));
  };
  return flatpickr(input, {
    mode: 'range',
    showMonths: 2,
    // the field sits at the right of the page heading: the calendar opens leftwards
    position: 'auto right',
    dateFormat: 'F j, Y',
    locale: { rangeSeparator: ' - ' },
    defaultDate: dates(options.current()),
    maxDate: localDate(options.maxDay),
    onReady: (_selected, _text, picker) => showEnd(picker),
    onOpen: (_selected, _text, picker) => showEnd(picker),
    onClose(selected, _text, picker) {
      if (selected.length === 2) options.onPick({ start: dayOfLocalDate(selected[0]), end: dayOfLocalDate(selected[1]) });
      // one day clicked and the picker left: back to the range in effect
      else picker.setDate(dates(options.current()), false);
    },
  });
}
