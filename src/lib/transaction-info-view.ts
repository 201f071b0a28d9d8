// How the Transaction Info modal reads (docs/console.md §2): addresses, the Custom Headers rule, and
// each event of the timeline (our addition to the modal): a title, a colour, the details worth a line
// each. Pure; apart from the table's rules, so pages load it only with the modal.
import type { AnswerCategory, MachineRuleId, UnsubscribeChannel } from '../contract/values.ts';
import type { TransactionEventWire, TransactionReplyWire } from './wire.ts';
import { formatMoment } from './dates.ts';
import type { StatusTone } from './transaction-view.ts';

/** 'Name <email>', or the bare address without a name. */
export function addressText(email: string, name: string): string {
  return name ? `${name} <${email}>` : email;
}

/**
 * The Custom Headers of the modal (docs/console.md §2): the additional headers when they parse to a
 * non-empty object, as name/value pairs; null otherwise (then the section is not shown).
 */
export function customHeaders(json: string): [string, string][] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const entries = Object.entries(parsed).map(([name, value]): [string, string] => [
    name,
    typeof value === 'string' ? value : JSON.stringify(value),
  ]);
  return entries.length > 0 ? entries : null;
}

const EVENT_TITLES: Record<TransactionEventWire['type'], string> = {
  queued: 'Queued',
  sent: 'Sent',
  delivered: 'Delivered',
  deferred: 'Deferred',
  failed: 'Failed',
  bounced: 'Bounced',
  open: 'Opened',
  click: 'Clicked',
  unsubscribe: 'Unsubscribed',
  resubscribe: 'Resubscribed',
  download: 'Downloaded',
  complaint: 'Complaint',
  scheduled: 'Scheduled',
  canceled: 'Canceled',
};

const VIA: Record<UnsubscribeChannel, string> = {
  page: 'on the unsubscribe page',
  one_click: 'with the one-click header',
  mailto: 'by mail',
  feedback_report: 'by a feedback loop’s report',
};

/** What a refusal or delay was about, as the timeline says it (the event's `category`). */
const CAUSES: Record<AnswerCategory, string> = {
  invalid_recipient: 'the address does not exist',
  mailbox_disabled: 'the mailbox is disabled',
  mailbox_full: 'the mailbox is full',
  message_too_large: 'the message is too large',
  policy_block: 'refused by the receiver’s policy (blocklist, reputation, not authorised)',
  spam_block: 'the content was judged as spam',
  authentication: 'sender authentication (SPF, DKIM, DMARC)',
  routing: 'routing to the mailbox failed',
  system: 'the receiving system’s own trouble',
  protocol: 'the SMTP exchange or the message format',
  transient: 'a temporary failure',
  unknown: 'not stated by the server',
};

/**
 * Which machine opened or clicked, as the timeline says it (the event's `machine_rule`, from the
 * rule table of src/server/tracking/machine-rules.ts).
 */
const MACHINES: Record<MachineRuleId, string> = {
  head_request: 'a HEAD request (a link checker)',
  apple_mail_proxy: 'Apple Mail Privacy Protection, fetching the images at delivery',
  link_scanner_network: 'a mail-security gateway’s link scanner',
  click_at_delivery: 'a link scanner (clicked within 5 s of delivery)',
  every_link_at_once: 'a link scanner (every link clicked within a second)',
};

/** An open or a click by a machine: its title says so, and one line says which and that it was not counted. */
function machineLine(d: TransactionEventWire['data'], details: string[]): boolean {
  if (!d.machine) return false;
  details.push(`By ${d.machine_rule ? MACHINES[d.machine_rule] : 'a machine'}; not counted as a person’s`);
  return true;
}

/** 'Cause: the mailbox is full', or nothing when the event has no category. */
function causeLine(d: TransactionEventWire['data'], details: string[]): void {
  if (d.category) details.push(`Cause: ${CAUSES[d.category]}`);
}

/** 'mx2.example.com (192.0.2.3) over TLS 1.3' — where a message went and how. */
export function wireText(d: TransactionEventWire['data']): string | null {
  if (!d.mx_host) return null;
  const at = d.mx_address ? `${d.mx_host} (${d.mx_address})` : d.mx_host;
  const over = d.tls_version ? `over ${d.tls_version.replace(/^TLSv/, 'TLS ')}` : 'without TLS';
  return `${at} ${over}`;
}

/** The hosts tried before the last one, and the MTA-STS policy, a line each. */
function wireDetails(d: TransactionEventWire['data'], details: string[]): void {
  const tried = d.tried ?? [];
  for (const hop of tried.slice(0, -1))
    details.push(`Tried ${hop.address ? `${hop.host} (${hop.address})` : hop.host}: ${hop.reply}`);
  if (d.mta_sts)
    details.push(`MTA-STS policy: ${d.mta_sts}${d.mta_sts_failure ? ` (would refuse: ${d.mta_sts_failure})` : ''}`);
}

/** A timeline entry: its title and the details worth a line each (the remote reply first). */
export function eventView(event: TransactionEventWire): {
  title: string;
  tone: StatusTone | 'neutral' | 'machine';
  details: string[];
} {
  const d = event.data;
  const details: string[] = [];
  let title = EVENT_TITLES[event.type];
  let tone: StatusTone | 'neutral' | 'machine' = 'neutral';
  switch (event.type) {
    case 'queued':
      details.push('Accepted for delivery');
      break;
    case 'sent':
      if (d.attempt) details.push(`Attempt ${d.attempt}`);
      break;
    case 'delivered':
      tone = 'delivered';
      if (wireText(d)) details.push(`Delivered to ${wireText(d)}`);
      if (d.reply) details.push(`Remote server: ${d.reply}`);
      wireDetails(d, details);
      break;
    case 'deferred':
      if (d.reply) details.push(`Remote server: ${d.reply}`);
      causeLine(d, details);
      wireDetails(d, details);
      if (d.next_attempt_at) details.push(`Next attempt ${formatMoment(d.next_attempt_at)}`);
      break;
    case 'bounced':
      tone = 'bounced';
      if (d.bounce_type) title = `Bounced (${d.bounce_type})`;
      if (d.reply) details.push(`Remote server: ${d.reply}`);
      if (d.status) details.push(`Status ${d.status}`);
      if (d.reason && d.reason !== d.reply) details.push(d.reason);
      causeLine(d, details);
      wireDetails(d, details);
      break;
    case 'failed':
      tone = 'failed';
      if (d.reply) details.push(`Remote server: ${d.reply}`);
      if (d.reason && d.reason !== d.reply) details.push(d.reason);
      causeLine(d, details);
      break;
    case 'open':
    case 'click':
      // a machine's (a mail privacy proxy, a link scanner): told apart, not counted
      if (machineLine(d, details)) {
        title = `${title} by a machine`;
        tone = 'machine';
      }
      if (event.type === 'open' && d.user_agent) details.push(d.user_agent);
      if (event.type === 'click' && d.url) details.push(d.url);
      break;
    case 'unsubscribe':
    case 'resubscribe':
      if (d.via) details.push(VIA[d.via as UnsubscribeChannel] ?? d.via);
      break;
    case 'complaint':
      // a feedback loop's report (RFC 5965): the recipient marked the message as spam
      tone = 'failed';
      details.push('The recipient marked the message as spam');
      if (d.feedback_type) details.push(`Feedback type: ${d.feedback_type}`);
      // the report's User-Agent: the feedback loop that sent it
      if (d.user_agent) details.push(`Reported by ${d.user_agent}`);
      break;
    case 'scheduled':
      // accepted to be sent later (scheduled_at); moved, it is scheduled again
      if (d.scheduled_at) details.push(`To be sent ${formatMoment(d.scheduled_at)}`);
      break;
    case 'canceled':
      tone = 'failed';
      details.push('Canceled before its time: nothing was sent');
      break;
    case 'download':
      // an online attachment's file, through the recipient's link
      if (d.file) details.push(d.link ? `${d.file} from ${d.link}` : d.file);
      break;
  }
  return { title, tone, details };
}

/** One line of the timeline: an event of the transaction, or a reply received to it. */
export type TimelineEntry =
  | { kind: 'event'; time: number; event: TransactionEventWire }
  | { kind: 'reply'; time: number; reply: TransactionReplyWire };

/**
 * The timeline's entries oldest first: the events in their order, each reply received placed after
 * the events of its second and before later ones (a reply never comes before what it answers).
 */
export function timelineEntries(events: TransactionEventWire[], replies: TransactionReplyWire[]): TimelineEntry[] {
  const entries: TimelineEntry[] = events.map((event) => ({ kind: 'event', time: event.time, event }));
  for (const reply of replies) {
    let at = entries.length;
    while (at > 0 && entries[at - 1].time > reply.time) at--;
    entries.splice(at, 0, { kind: 'reply', time: reply.time, reply });
  }
  return entries;
}
