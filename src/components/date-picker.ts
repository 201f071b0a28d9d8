// flatpickr as the range picker of the Dashboard and the Recipients tab (docs/architecture.md §9: flatpickr for
// dates). Loaded on the first click or focus of a picker's field, never with the page: the page's
// JavaScript budget (≤ 100 KB gzipped) has no room for it up front.
import flatpickr from 'flatpickr';
import type { Instance } from 'flatpickr/dist/types/instance';
// as a URL, linked when the picker loads: a plain CSS import would be linked by every page whose
// islands can load this module, costing them 2.8 KB of their 30 KB stylesheet budget up front
import stylesheetUrl from 'flatpickr/dist/flatpickr.min.css?url';
import { type DayRange, dayOfLocalDate, localDate, presetRanges } from '../lib/dates.ts';

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

/** Below this width the calendar shows one month: two (about 620 px) would not fit a phone. */
const TWO_MONTHS_QUERY = '(min-width: 680px)';

/**
 * A range picker whose calendar opens under `field` (which the caller renders and writes: the range
 * 'MMMM D, YYYY - MMMM D, YYYY', docs/console.md §9). flatpickr gets a hidden input of its own, so its DOM
 * changes never touch the caller's nodes; the caller opens the picker on click and focus.
 */
export function createRangePicker(field: HTMLElement, options: RangePickerOptions): Instance {
  const dates = (r: DayRange) => [localDate(r.start), localDate(r.end)];
  const months = window.matchMedia(TWO_MONTHS_QUERY).matches ? 2 : 1;
  // the range's last month on the right
  const showEnd = (picker: Instance) => {
    const end = localDate(options.current().end);
    picker.jumpToDate(new Date(end.getFullYear(), end.getMonth() - (months - 1), 1));
  };
  // flatpickr makes its input a text field: keep it out of sight and out of the tab order
  const own = Object.assign(document.createElement('input'), { hidden: true, tabIndex: -1 });
  own.setAttribute('aria-hidden', 'true');
  document.body.append(own);
  const picker = flatpickr(own, {
    mode: 'range',
    showMonths: months,
    positionElement: field,
    clickOpens: false,
    // a click on the field while the calendar is open keeps it open
    ignoredFocusElements: [field],
    // the field sits at the right of the page heading: the calendar opens leftwards
    position: 'auto right',
    dateFormat: 'F j, Y',
    locale: { rangeSeparator: ' - ' },
    defaultDate: dates(options.current()),
    maxDate: localDate(options.maxDay),
    onReady: (_selected, _text, picker) => showEnd(picker),
    // a day after today cannot be picked: say so to assistive technology, not by its grey alone
    onDayCreate: (_selected, _text, _picker, day: HTMLElement) => {
      if (day.classList.contains('flatpickr-disabled')) day.setAttribute('aria-disabled', 'true');
    },
    onOpen: (_selected, _text, picker) => showEnd(picker),
    onClose(selected, _text, picker) {
      if (selected.length === 2)
        options.onPick({ start: dayOfLocalDate(selected[0]), end: dayOfLocalDate(selected[1]) });
      // one day clicked and the picker left: back to the range in effect
      else picker.setDate(dates(options.current()), false);
    },
    onDestroy: () => own.remove(),
  });
  addPresets(picker, options.maxDay);
  return picker;
}

/**
 * The presets under the calendar's months: Today, Last 7 days, Last 30 days, This month, Last month,
 * each ending on or before `today`; a click picks the range and closes the calendar (onClose takes it).
 */
function addPresets(picker: Instance, today: string): void {
  const bar = Object.assign(document.createElement('div'), { className: 'date-presets' });
  bar.setAttribute('role', 'group');
  bar.setAttribute('aria-label', 'Preset ranges');
  for (const { label, range } of presetRanges(today)) {
    const button = Object.assign(document.createElement('button'), { type: 'button', textContent: label });
    button.className = 'button is-small is-light';
    button.dataset.preset = label;
    button.addEventListener('click', () => {
      picker.setDate([localDate(range.start), localDate(range.end)], false);
      picker.close();
    });
    bar.append(button);
  }
  picker.calendarContainer.append(bar);
}
