// The lists and limits the contract's schemas are built from, defined once as plain values: the
// server reads them from here (db/schema.ts its column types, the services their checks). No
// schema code here, so db/schema.ts or a browser file may import it without pulling in zod.

/** The permission flags of docs/console.md §3/§6, stored as booleans and sent as 'yes'/'no'. */
export const PERMISSIONS = [
  'super_administrator',
  'customer_administrator',
  'domains_access',
  'archive_report_access',
  'enterprise_templates',
  'sms_edit',
  'message_report_access',
  'send_transactions',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What a named API key may do (docs/integrating.md "API keys"): everything, or only send. */
export const API_KEY_PERMISSIONS = ['full_access', 'sending_access'] as const;
export type ApiKeyPermission = (typeof API_KEY_PERMISSIONS)[number];

/** The options the Settings page toggles (docs/console.md §7 POST /v1/ui-settings). */
export const SENDING_OPTIONS = ['track_opens', 'track_links', 'disable_suppression'] as const;
export type SendingOption = (typeof SENDING_OPTIONS)[number];

// ---- transactions and their events (docs/architecture.md: transaction status) --------------------

/**
 * scheduled: accepted with a `scheduled_at` still ahead (the quota is counted when it is released to
 * the queue); canceled: a scheduled message canceled before its time (nothing is sent).
 */
export const TRANS_STATUSES = ['queued', 'sent', 'failed', 'no_quota', 'scheduled', 'canceled'] as const;
export type TransStatus = (typeof TRANS_STATUSES)[number];
export const DELIVERED_STATUSES = ['pending', 'delivered', 'bounced', 'failed'] as const;
export type DeliveredStatus = (typeof DELIVERED_STATUSES)[number];
export const EVENT_TYPES = [
  'queued',
  'sent',
  'delivered',
  'deferred',
  'failed',
  'bounced',
  'open',
  'click',
  'unsubscribe',
  'resubscribe',
  'download',
  // a feedback loop's report that the recipient marked the message as spam (an ARF report, RFC 5965)
  'complaint',
  // accepted to be sent at a later moment (scheduled_at), and canceled before it
  'scheduled',
  'canceled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/**
 * What a remote server's refusal or delay was about (src/server/delivery/remote-answer.ts decides,
 * for a reply during delivery and for a DSN alike), recorded on bounced, failed and deferred events.
 * Only invalid_recipient is a hard bounce that suppresses the address.
 */
export const ANSWER_CATEGORIES = [
  'invalid_recipient', // no such mailbox or domain
  'mailbox_disabled', // the mailbox exists but takes no mail now
  'mailbox_full',
  'message_too_large',
  'policy_block', // a blocklist, our reputation, not authorised to send there
  'spam_block', // this message's content judged as spam
  'authentication', // SPF, DKIM, DMARC, reverse DNS of the sending address
  'routing', // the path to the mailbox failed
  'system', // the receiving system's own condition
  'protocol', // the SMTP exchange or the message's format
  'transient', // a temporary failure (4xx) or no answer
  'unknown',
] as const;
export type AnswerCategory = (typeof ANSWER_CATEGORIES)[number];
/**
 * Why an open or a click was a machine's rather than a person's (the rule table of
 * src/server/tracking/machine-rules.ts, which says each one's source), recorded on the event.
 */
export const MACHINE_RULE_IDS = [
  'head_request', // a HEAD: a checker asking for the headers only
  'apple_mail_proxy', // Apple Mail Privacy Protection fetching every image at delivery
  'link_scanner_network', // from a published network of a mail-security gateway
  'click_at_delivery', // a click within 5 s of delivery
  'every_link_at_once', // one of clicks on every link of the message within a second
] as const;
export type MachineRuleId = (typeof MACHINE_RULE_IDS)[number];

// ---- reports (docs/console-reports.md §7, §9) --------------------------------------------------

/**
 * The status filter buttons All, Sent, Failed, Delivered (docs/console.md §2, §9):
 * - sent: trans_status 'sent' — the remote server took the message (it may have bounced later);
 *   queued transactions appear under All only;
 * - failed: trans_status 'failed' or 'no_quota' (docs/console.md §4: both display as failed);
 * - delivered: trans_delivered_status 'delivered' — taken and not bounced since.
 */
export const MESSAGE_STATUSES = ['all', 'sent', 'failed', 'delivered'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
/**
 * reportType narrows the search to a group report's table (docs/console-reports.md §2: sent, opens, clicks,
 * failed, bounced); all and overview select everything.
 */
export const REPORT_TYPES = ['all', 'overview', 'sent', 'opens', 'clicks', 'failed', 'bounced'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
/** The report types of docs/console-reports.md §2 (one page each). */
export const GROUP_REPORT_TYPES = ['overview', 'sent', 'opens', 'clicks', 'failed', 'bounced'] as const;
export type GroupReportType = (typeof GROUP_REPORT_TYPES)[number];
/**
 * Sort keys of the groups table: group_last_send_date and failed are the spec's (docs/console-reports.md §2);
 * the others name the remaining columns the same way.
 */
export const GROUP_SORT_KEYS = [
  'group_last_send_date',
  'group_create_date',
  'group_name',
  'requests',
  'sent',
  'failed',
  'delivered',
  'bounces',
  'opens',
  'clicks',
] as const;
export type GroupSortKey = (typeof GROUP_SORT_KEYS)[number];

// ---- sending (docs/architecture.md §7 "Send") ----------------------------------------------------

export const MAX_RECIPIENTS = 50;
export const MAX_BATCH = 500;

// ---- attachments, webhooks, suppression ----------------------------------------------------------

/** docs/console-reports.md §9: attachment list page size. */
export const ATTACHMENT_PAGE_SIZE = 8;

/**
 * The webhook event types: the seven of docs/console.md §3 (Webhook event_types) and ours, `delayed`
 * (a message's first deferral) and `complaint` (a feedback report), each beside its neighbour in a
 * message's life, the order the Webhook modal lists them in (docs/webhooks.md "Events").
 */
export const WEBHOOK_EVENT_TYPES = [
  'sent',
  'delayed',
  'failed',
  'bounce',
  'complaint',
  'open',
  'click',
  'unsubscribe',
  'resubscribe',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_VERBS = ['post', 'get', 'put', 'patch', 'delete'] as const;
/**
 * A webhook's payloads: `standard` and `legacy` (docs/webhooks.md "Payloads"), or `resend`, Resend's
 * events (one made with POST /resend/webhooks; src/server/webhooks/resend-events.ts).
 */
export const FIELD_SETS = ['legacy', 'standard', 'resend'] as const;
/** The Resend events a `resend` webhook may subscribe to (src/server/webhooks/resend-events.ts maps ours to them). */
export const RESEND_WEBHOOK_EVENTS = [
  'email.sent',
  'email.scheduled',
  'email.delivered',
  'email.delivery_delayed',
  'email.complained',
  'email.bounced',
  'email.opened',
  'email.clicked',
  'email.failed',
  'email.suppressed',
  // mail received for a receiving domain (docs/receiving.md); it names no sent message
  'email.received',
] as const;
export type ResendWebhookEvent = (typeof RESEND_WEBHOOK_EVENTS)[number];
/**
 * What a webhook's `email.received` carries (docs/receiving.md "To a webhook"): the message's fields
 * (`metadata`, Resend's event) or the whole message too (`full`: text, HTML, headers, attachments, raw).
 */
export const RECEIVED_CONTENT = ['metadata', 'full'] as const;
export type ReceivedContent = (typeof RECEIVED_CONTENT)[number];
/** With `full`: attachments come inline (base64) while they total at most this many bytes (256 KiB)… */
export const RECEIVED_INLINE_DEFAULT_BYTES = 262_144;
/** …a limit a webhook may set from 0 (always links) to this (1 MiB). */
export const RECEIVED_INLINE_LIMIT_BYTES = 1_048_576;

/**
 * How a recipient unsubscribed or resubscribed: the page, the one-click header (RFC 8058), the
 * List-Unsubscribe mailto: (RFC 2369), or a feedback loop's report of type unsubscribe.
 */
export const UNSUBSCRIBE_CHANNELS = ['page', 'one_click', 'mailto', 'feedback_report'] as const;
export type UnsubscribeChannel = (typeof UNSUBSCRIBE_CHANNELS)[number];

/**
 * Why an address is on the suppression list (docs/console-reports.md §3 "Suppression entry"): the customer
 * added it, a hard bounce, an unsubscribe, or a spam complaint from a feedback loop.
 */
export const SUPPRESSION_ORIGINS = ['user', 'bounce', 'unsubscribe', 'complaint'] as const;
export type SuppressionOrigin = (typeof SUPPRESSION_ORIGINS)[number];

/** Lines one POST /v1/suppression may carry: a large paste, yet one bounded transaction. */
export const MAX_EMAILS_PER_REQUEST = 10_000;
