// The lifecycle's policy table: for each thing that can happen to a message (an outcome) and the
// state it was in, what is written about it. lifecycle.service.ts applies these rows and is the only
// writer of a message's status, its events (and through them the webhook outbox), the daily
// counters and the suppression it causes (docs/architecture.md §5).
import type { DeliveredStatus, EventType, StatColumn, SuppressionOrigin, TransStatus } from '../db/schema.ts';

/** What can happen to a message, from acceptance to the recipient's last click. */
export type Outcome =
  // acceptance (sending.service.ts); a scheduled message is released to the queue at its time,
  // moved while it waits, or canceled
  | 'accepted'
  | 'suppressed'
  | 'over_quota'
  | 'scheduled'
  | 'released'
  | 'rescheduled'
  | 'canceled'
  // one delivery attempt (delivery/worker.ts)
  | 'delivered'
  | 'deferred'
  | 'bounced'
  | 'expired'
  // reports mailed back later (bounces/)
  | 'bounce_report'
  | 'complaint'
  // the recipient (tracking/, unsubscribe/, attachments/)
  | 'open'
  | 'click'
  | 'unsubscribe'
  | 'resubscribe'
  | 'download';

/** The facts of one occurrence that change what is written. */
export interface Facts {
  /** The status the message was in; a bounce report on a queued message ends it as failed. */
  from?: TransStatus;
  /** A bounce whose answer says the address does not exist (delivery/remote-answer.ts): hard. */
  addressBad?: boolean;
  /** An open or click by a machine (tracking/machine-rules.ts): counted apart, never as a person's. */
  machine?: boolean;
  /** A person's open or click that is the message's first of its kind: a unique one. */
  first?: boolean;
}

export interface Writes {
  /** The message's status afterwards; null leaves it as it is. */
  status: TransStatus | null;
  delivered: DeliveredStatus | null;
  bounce: 'hard' | 'soft' | null;
  /** Appended in this order; the first (`queued`) carries no data, the others the occurrence's. */
  events: EventType[];
  counts: Partial<Record<StatColumn, number>>;
  /**
   * The recipient goes on the customer's suppression list with this origin, unless listed already.
   * A bounce obeys the customer's "disable suppression"; the recipient's own word (a complaint, an
   * unsubscribe) is listed even then, and sending ignores the list while it is disabled.
   */
  suppress: { origin: SuppressionOrigin; evenWhenDisabled: boolean } | null;
}

const NOTHING: Writes = { status: null, delivered: null, bounce: null, events: [], counts: {}, suppress: null };
const writes = (w: Partial<Writes>): Writes => ({ ...NOTHING, ...w });
const HARD_BOUNCE = { origin: 'bounce', evenWhenDisabled: false } as const;

/** The bounce counts and suppression of a bounce, hard only when the address is bad. */
function bounceOf(f: Facts): Pick<Writes, 'bounce' | 'suppress'> {
  const hard = f.addressBad === true;
  return {
    bounce: hard ? 'hard' : 'soft',
    suppress: hard ? HARD_BOUNCE : null,
  };
}

/**
 * A person's open or click counts once more on its day, a machine's apart. (Whether a transaction
 * was opened or clicked at all is its own counter, which transaction_counts counts by state.)
 */
function hitOf(kind: 'open' | 'click', f: Facts): Writes {
  if (f.machine)
    return writes({ events: [kind], counts: kind === 'open' ? { machine_opens: 1 } : { machine_clicks: 1 } });
  return writes({ events: [kind], counts: kind === 'open' ? { opens: 1 } : { clicks: 1 } });
}

/** Outcome (and the facts of the occurrence) → what is written. */
export const POLICY: Record<Outcome, (f: Facts) => Writes> = {
  // the states these write are counted by transaction_counts (stats/figures.ts), not here
  accepted: () => writes({ status: 'queued', delivered: 'pending', events: ['queued'] }),
  suppressed: () => writes({ status: 'failed', delivered: 'failed', events: ['queued', 'failed'] }),
  // over the quota at acceptance, or at the release of a scheduled message
  over_quota: (f) =>
    f.from === 'scheduled'
      ? writes({ status: 'no_quota', delivered: 'failed', events: ['failed'] })
      : writes({
          status: 'no_quota',
          delivered: 'failed',
          events: ['queued', 'failed'],
        }),
  // to be sent at a later moment; the quota is counted when it is released
  scheduled: () => writes({ status: 'scheduled', delivered: 'pending', events: ['scheduled'] }),
  released: () => writes({ status: 'queued', delivered: 'pending', events: ['queued'] }),
  rescheduled: () => writes({ status: 'scheduled', delivered: 'pending', events: ['scheduled'] }),
  // canceled before its time: nothing is sent, and it is no failure
  canceled: () => writes({ status: 'canceled', delivered: 'failed', events: ['canceled'] }),
  delivered: () =>
    writes({
      status: 'sent',
      delivered: 'delivered',
      events: ['sent', 'delivered'],
    }),
  // the first deferral of a message also sends the `delayed` webhook (webhooks/outbox.ts)
  deferred: () => writes({ status: 'queued', delivered: 'pending', events: ['deferred'] }),
  // refused for good during delivery: failed, a bounce that is hard only when the address is bad
  bounced: (f) => {
    const b = bounceOf(f);
    return writes({
      ...b,
      status: 'failed',
      delivered: 'bounced',
      events: ['bounced'],
    });
  },
  // the retry window closed: failed, a soft bounce
  expired: () =>
    writes({
      status: 'failed',
      delivered: 'failed',
      bounce: 'soft',
      events: ['failed'],
    }),
  // a DSN after the fact: a queued message ends as failed; a sent one stays sent, and is bounced now
  bounce_report: (f) => {
    const b = bounceOf(f);
    const queued = f.from === 'queued';
    return writes({
      ...b,
      status: queued ? 'failed' : (f.from ?? null),
      delivered: 'bounced',
      events: ['bounced'],
    });
  },
  complaint: () =>
    writes({
      events: ['complaint'],
      counts: { complaints: 1 },
      suppress: { origin: 'complaint', evenWhenDisabled: true },
    }),
  open: (f) => hitOf('open', f),
  click: (f) => hitOf('click', f),
  unsubscribe: () => writes({ events: ['unsubscribe'], suppress: { origin: 'unsubscribe', evenWhenDisabled: true } }),
  // the unsubscribe's own entry is taken off the list (lifecycle.service.ts); nothing else changes
  resubscribe: () => writes({ events: ['resubscribe'] }),
  download: () => writes({ events: ['download'] }),
};
