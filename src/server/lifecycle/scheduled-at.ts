// When a scheduled message is to be sent: `scheduled_at` as Resend takes it, an ISO 8601 moment with
// its offset, or a few words ("in 1 hour", "tomorrow at 9am", read in UTC by chrono-node, a
// well-kept natural-language date parser). Up to 30 days ahead; anything else is refused with a
// reason. Pure: the moment of the request is given.
import * as chrono from 'chrono-node';

export const MAX_SCHEDULE_DAYS = 30;
const DAY_MS = 86_400_000;
/** ISO 8601 date and time with seconds optional and an offset (Z or ±hh:mm), as RFC 3339 writes it. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const ISO_WITHOUT_OFFSET = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?$/;

export type ScheduleReading = { at: Date } | { problem: string };

/** Reads `text` as a moment after `now` and at most 30 days after it. */
export function readScheduledAt(text: string, now: Date): ScheduleReading {
  const input = text.trim();
  let at: Date | null = null;
  if (ISO_WITH_OFFSET.test(input)) at = new Date(input.replace(' ', 'T'));
  else if (ISO_WITHOUT_OFFSET.test(input))
    return { problem: 'an ISO 8601 moment needs its offset, e.g. 2026-11-28T09:00:00Z or +01:00' };
  else {
    // the whole text must be one moment: "tomorrow at 9am" is, "tomorrow or so" is not
    const [result] = chrono.parse(input, { instant: now, timezone: 'UTC' }, { forwardDate: true });
    if (result && result.index === 0 && result.text.length === input.length) at = result.start.date();
  }
  if (at === null || Number.isNaN(at.getTime()))
    return {
      problem:
        `could not read "${input.slice(0, 80)}" as a moment: give ISO 8601 with an offset ` +
        '(2026-11-28T09:00:00Z) or words such as "in 1 hour" or "tomorrow at 9am" (UTC)',
    };
  if (at.getTime() <= now.getTime()) return { problem: 'must be in the future' };
  if (at.getTime() > now.getTime() + MAX_SCHEDULE_DAYS * DAY_MS)
    return { problem: `must be at most ${MAX_SCHEDULE_DAYS} days ahead` };
  return { at };
}
