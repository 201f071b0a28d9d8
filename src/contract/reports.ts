// The report calls of the contract: the dashboard, the transaction and group searches, a
// transaction's timeline, a group's reports, links and exports (docs/console.md §7, docs/console-reports.md §7).
import { z } from '@hono/zod-openapi';
import { messageAnswer, operationsOf, pageMeta, pageOf, queryTwin, uuidId } from './common.ts';
import { dateField, isUuid, pageField, textField } from './fields.ts';
import {
  ANSWER_CATEGORIES,
  DELIVERED_STATUSES,
  EVENT_TYPES,
  GROUP_REPORT_TYPES,
  GROUP_SORT_KEYS,
  MACHINE_RULE_IDS,
  MESSAGE_STATUSES,
  REPORT_TYPES,
  TRANS_STATUSES,
} from './values.ts';

const SEARCH_TEXT_MAX = 320;
const SORT_FIELD_MAX = 40;

/** An enum value; empty or null means absent. */
function choice<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .union([z.literal(''), z.enum(values)], { error: `must be one of ${values.join(', ')}` })
    .nullish()
    .transform((v) => (v ? v : undefined));
}

const rangeFields = { startDate: dateField, endDate: dateField, start_date: dateField, end_date: dateField };

// query strings may carry a cache-buster, so other parameters are ignored there
export const dashboardQuery = z.object(rangeFields);
export const overviewBody = z.strictObject(rangeFields);

export const transactionSearchBody = z.strictObject({
  ...rangeFields,
  reportType: choice(REPORT_TYPES),
  report_type: choice(REPORT_TYPES),
  page: pageField,
  order: textField(SORT_FIELD_MAX),
  order_by: textField(SORT_FIELD_MAX),
  recipient_email: textField(SEARCH_TEXT_MAX),
  transaction_search_string: textField(SEARCH_TEXT_MAX),
  search_query: textField(SEARCH_TEXT_MAX),
  message_status: choice(MESSAGE_STATUSES),
  group_uuid: textField(64).refine((v) => v === undefined || isUuid(v), { message: 'must be a group uuid' }),
});

export const groupSearchBody = z.strictObject({
  page: pageField,
  searchQuery: textField(SEARCH_TEXT_MAX),
  search_query: textField(SEARCH_TEXT_MAX),
  order: textField(SORT_FIELD_MAX),
  orderBy: textField(SORT_FIELD_MAX),
});

const reportType = z.enum(GROUP_REPORT_TYPES, { error: `must be one of ${GROUP_REPORT_TYPES.join(', ')}` });

/** The report body of docs/console-reports.md §7 (also the export's, with isExport, and the links call's). */
export const reportBody = z.strictObject({
  report_type: reportType,
  // checked against the customer's groups, not here: a malformed uuid is 404 like an unknown one
  group_uuid: z.string().max(64).optional(),
  start_date: dateField,
  end_date: dateField,
  page: pageField,
  order: textField(SORT_FIELD_MAX),
  order_by: textField(SORT_FIELD_MAX),
  search_query: textField(SEARCH_TEXT_MAX),
  isExport: z.boolean().optional(),
});

export const groupOverviewBody = z.strictObject({
  group_uuid: z.string().max(64).optional(),
  report_type: reportType.optional(),
  start_date: dateField,
  end_date: dateField,
});

/** GET /v1/links: the report body as a query string, report_type optional (clicks). */
export const linksQuery = reportBody.extend({ report_type: reportType.optional() });

export const exportViewBody = z.strictObject({ uuid: z.string().max(64) });

// a report's total stops counting at a cap
const reportPageMeta = pageMeta.extend({ total_capped: z.boolean() });
/**
 * Paging of a paged answer (docs/console.md §3 "Paged response"), read by the server and the console.
 * `total_capped` is there only where the API may stop counting (the transaction and report searches);
 * other lists' answers leave it out.
 */
export type PageMeta = z.infer<typeof pageMeta> & { total_capped?: boolean };

/** One UTC day of a chart; each figure as docs/console-reports.md "Figures" defines it. */
const dailyStat = z.object({
  tstat_day: z.string().openapi({ example: '2026-11-24' }),
  requests: z
    .number()
    .int()
    .openapi({
      description:
        'Transactions accepted that day. The states below are theirs, as they are now: delivered + bounced + ' +
        'failed + pending = requests.',
    }),
  sent: z.number().int().openapi({ description: 'Handed over and answered: delivered + bounced.' }),
  failed: z.number().int().openapi({
    description: 'Never handed over: suppressed, over the quota, given up after retrying, or canceled.',
  }),
  delivered: z.number().int(),
  bounced: z.number().int().openapi({ description: 'Refused by the recipient’s server, at once or later by a DSN.' }),
  bounces_hard: z.number().int(),
  bounces_soft: z.number().int().openapi({ description: 'bounces_hard + bounces_soft = bounced.' }),
  pending: z.number().int().openapi({ description: 'Not handed over yet: queued, deferred or scheduled.' }),
  opens: z.number().int().openapi({ description: 'People’s opens on that day, of messages accepted on any day.' }),
  unique_opens: z.number().int().openapi({
    description: 'Transactions accepted that day and delivered that a person opened.',
  }),
  link_clicks: z.number().int().openapi({ description: 'People’s clicks on that day.' }),
  unique_clicks: z.number().int().openapi({
    description: 'Transactions accepted that day and delivered in which a person clicked a link.',
  }),
  machine_opens: z.number().int().openapi({
    description: 'Opens by machines (mail privacy proxies, link scanners); opens and unique_opens count people only.',
  }),
  machine_clicks: z.number().int().openapi({
    description: 'Clicks by machines (link scanners); link_clicks and unique_clicks count people only.',
  }),
  complaints: z.number().int().openapi({ description: 'Spam complaints from feedback loops received that day.' }),
});

const transaction = z.object({
  trans_uuid: z.string(),
  trans_date_sent: z.number().int().openapi({ description: 'Unix seconds; 0 when not sent yet.' }),
  trans_date_queued: z.number().int(),
  trans_to_email: z.string(),
  trans_to_name: z.string(),
  tm_subject: z.string(),
  tm_from_name: z.string(),
  tm_from_email: z.string(),
  tm_additional_headers: z.string().openapi({ description: 'The custom headers as JSON text, `{}` when none.' }),
  trans_delivered_status: z.enum(DELIVERED_STATUSES),
  trans_status: z.enum(TRANS_STATUSES),
  trans_group_uuid: z.string(),
  trans_group_name: z.string(),
  trans_read_count: z.number().int(),
  trans_click_count: z.number().int(),
  trans_attempts: z.number().int().openapi({
    description: 'Delivery attempts made so far; a queued transaction with some is deferred (a retry is due).',
  }),
});

/** A transaction as the console's tables show it (docs/console.md §3), also a received message's answered one. */
export const transactionWire = transaction;
const transactionPage = pageOf(transaction, reportPageMeta);

const group = z.object({
  group_id: z.number().int(),
  group_uuid: z.string(),
  group_name: z.string(),
  group_create_date: z.number().int(),
  group_last_send_date: z.number().int(),
  groupStats: z.object({
    tgs_total_requests: z.number().int(),
    tgs_total_sent: z.number().int(),
    tgs_total_failed: z.number().int(),
    tgs_total_delivered: z.number().int(),
    tgs_total_bounces: z.number().int(),
    tgs_total_opens: z.number().int(),
    tgs_total_link_clicks: z.number().int(),
  }),
});

const transactionEvent = z.object({
  type: z.enum(EVENT_TYPES),
  time: z.number().int().openapi({ description: 'Unix seconds (UTC).' }),
  data: z.object({
    reply: z.string().optional(),
    attempt: z.number().int().optional(),
    reason: z.string().optional(),
    bounce_type: z.enum(['hard', 'soft']).optional(),
    status: z.string().optional(),
    category: z.enum(ANSWER_CATEGORIES).optional().openapi({
      description: 'Bounced, failed and deferred: what the remote server’s answer was about, e.g. policy_block.',
    }),
    next_attempt_at: z.number().int().optional(),
    scheduled_at: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Scheduled: when the message is to be sent, Unix seconds.' }),
    url: z.string().optional(),
    ip: z.string().optional(),
    user_agent: z.string().optional().openapi({
      description:
        'Opens and clicks: the client’s User-Agent; a complaint: the report’s, the feedback loop that sent it.',
    }),
    machine: z
      .boolean()
      .optional()
      .openapi({
        description:
          'Opens and clicks: true when a machine made it (a mail privacy proxy, a link scanner), false for a ' +
          'person’s. Machines’ opens and clicks count in no read or click figure.',
      }),
    machine_rule: z.enum(MACHINE_RULE_IDS).optional().openapi({
      description: 'A machine’s open or click: the rule that told it from a person’s (docs/architecture.md §5.4).',
    }),
    via: z.string().optional(),
    feedback_type: z
      .string()
      .optional()
      .openapi({ description: 'Complaint: the feedback report’s Feedback-Type (RFC 5965), e.g. abuse.' }),
    arrival_date: z.string().optional().openapi({
      description: 'Complaint: the report’s Arrival-Date, when the provider received the message, ISO 8601 UTC.',
    }),
    file: z.string().optional(),
    link: z.string().optional(),
    mx_host: z.string().optional().openapi({ description: 'Direct MX delivery: the MX host that answered last.' }),
    mx_address: z.string().optional(),
    tls_version: z.string().optional().openapi({ description: 'TLSv1.3… of that session; absent without TLS.' }),
    tls_cipher: z.string().optional(),
    mta_sts: z.enum(['enforce', 'testing']).optional().openapi({ description: 'The MTA-STS mode that applied.' }),
    mta_sts_failure: z.string().optional().openapi({ description: 'Under testing: what enforce would have refused.' }),
    tried: z
      .array(z.object({ host: z.string(), address: z.string().nullable(), reply: z.string() }))
      .optional()
      .openapi({ description: 'Every host and address tried in the attempt and its answer, in order.' }),
  }),
});

const reportTransaction = transaction.extend({
  trans_id: z.number().int(),
  log_date: z.number().int(),
  trans_bounce_type: z.string(),
  trans_bounce_reason: z.string(),
  ts_total_opens: z.number().int(),
  ts_total_clicks: z.number().int(),
  ts_unique_clicks: z.number().int(),
});

const figure = z.object({ value: z.number(), percentage: z.number() });
const ofTransactions = (what: string) =>
  figure.openapi({ description: `${what}; the percentage is of the transactions (total).` });
const ofDelivered = (what: string) => figure.openapi({ description: `${what}; the percentage is of the delivered.` });
/** A range's figures (docs/console-reports.md "Figures"): delivered + bounced + failed + pending = total. */
const overviewStats = z.object({
  sent: ofTransactions('Handed over and answered: delivered + bounced'),
  delivered: ofTransactions('Taken by the recipient’s server'),
  failed: ofTransactions('Never handed over: suppressed, over the quota, given up after retrying, or canceled'),
  bounced: ofTransactions('Refused by the recipient’s server, at once or later by a DSN'),
  bouncesHard: ofTransactions('Bounced because the address does not exist'),
  bouncesSoft: ofTransactions('Every other bounce; bouncesHard + bouncesSoft = bounced'),
  pending: ofTransactions('Not handed over yet: queued, deferred or scheduled'),
  complaints: ofDelivered('Spam complaints from feedback loops received in the range (the complaint rate)'),
  uniqueOpens: ofDelivered('Delivered transactions a person opened'),
  notOpened: ofDelivered('Delivered transactions no person opened'),
  uniqueClicks: ofDelivered('Delivered transactions in which a person clicked a link'),
  notClicked: ofDelivered('Delivered transactions in which no person clicked'),
  totalOpens: z.object({ value: z.number() }).openapi({ description: 'People’s opens in the range.' }),
  totalClicks: z.object({ value: z.number() }).openapi({ description: 'People’s clicks in the range.' }),
  machineOpens: z.object({ value: z.number() }).openapi({
    description: 'Opens by machines in the range, shown beside the people’s (who alone are counted above).',
  }),
  machineClicks: z.object({ value: z.number() }).openapi({ description: 'Clicks by machines in the range.' }),
  total: z.number().int().openapi({ description: 'Transactions accepted in the range.' }),
});

const linkPage = pageOf(
  z.object({
    tll_url: z.string(),
    tm_subject: z.string(),
    click_count: z.number().int(),
    unique_click_count: z.number().int(),
  }),
  reportPageMeta,
);

const reportOperation = operationsOf({ tag: 'Reports', access: 'session' });
const exportOperation = operationsOf({ tag: 'Exports', access: 'session' });
const dateHelp =
  'Dates are `YYYY-MM-DD` (UTC days) or unix seconds; either spelling ' +
  'of a field (startDate or start_date) works, both must agree.';

export const getDashboard = reportOperation('GET /v1/dashboard', {
  summary: 'Dashboard figures',
  description:
    `The total of transactions accepted in the range and the first page of the latest transactions. ` +
    `${dateHelp} Other query parameters are ignored.`,
  query: dashboardQuery,
  success: [
    {
      status: 200,
      description: 'The range’s total and its first page of transactions.',
      schema: z.object({
        data: z.object({ overviewStats: z.object({ total: z.number().int() }), transactionStats: transactionPage }),
      }),
    },
  ],
});

export const getQuota = reportOperation('GET /v1/dashboard/get-quota', {
  summary: 'This month’s sending quota',
  description: 'How many messages the account sent this calendar month (UTC) and how many it may send.',
  success: [
    {
      status: 200,
      description: 'The month’s usage.',
      schema: z.object({ quota: z.object({ sent: z.number().int(), maximum: z.number().int() }) }),
      example: { quota: { sent: 120, maximum: 10000 } },
    },
  ],
  errors: ['not_found'],
});

export const postDashboardOverview = reportOperation('POST /v1/dashboard/overview', {
  summary: 'Overview total and daily series',
  description:
    `The total of transactions accepted in the range (all time for an empty body) and one entry per day ` +
    `of the chart’s range (the last 29 days through today by default, at most 731 days). ${dateHelp}`,
  body: overviewBody,
  bodyExample: { startDate: '2026-11-01', endDate: '2026-11-24' },
  success: [
    {
      status: 200,
      description: 'The total and the daily series, zeros included.',
      schema: z.object({ overviewStats: z.object({ total: z.number().int() }), dailyStats: z.array(dailyStat) }),
    },
  ],
});

export const searchTransactions = reportOperation('POST /v1/transaction/search', {
  summary: 'Search transactions',
  description:
    `One page (10 rows) of the account’s transactions, newest first unless sorted otherwise: by status, ` +
    `report type, group, recipient or text (a transaction uuid, or the start of an address or domain). ${dateHelp} ` +
    `An unknown field, sort key or status is refused.`,
  body: transactionSearchBody,
  bodyExample: { startDate: '2026-11-01', endDate: '2026-11-24', page: 1, message_status: 'delivered' },
  success: [{ status: 200, description: 'One page of transactions and the paging block.', schema: transactionPage }],
});

export const searchGroups = reportOperation('POST /v1/transaction-groups/search', {
  summary: 'Search transaction groups',
  description:
    `One page (10 rows) of the account’s transaction groups with ` +
    `their totals, by name; sort keys: ${GROUP_SORT_KEYS.join(', ')}.`,
  body: groupSearchBody,
  bodyExample: { page: 1, searchQuery: 'newsletter' },
  success: [
    {
      status: 200,
      description: 'One page of groups and the paging block.',
      schema: pageOf(group, reportPageMeta),
    },
  ],
});

/** A transaction named by its uuid in the path. */
const transactionParams = z.object({ uuid: uuidId('The transaction’s uuid; anything else answers 404.') });

/** A received message that answers a sent one (docs/receiving.md): a "Reply received" entry of the timeline. */
const transactionReply = z.object({
  id: z.string().openapi({ description: 'The received message’s id: GET /v1/inbound/{id}, the page /inbound/{id}.' }),
  from: z.string().openapi({ description: 'Its From: `Name <address>` or the bare address.' }),
  time: z.number().int().openapi({ description: 'When it was received, Unix seconds (UTC).' }),
});

export const getTransactionEvents = reportOperation('GET /v1/transactions/{uuid}/events', {
  summary: 'A transaction’s timeline',
  description:
    'Every event of one transaction in order: accepted, sent, deferred, ' +
    'delivered, bounced, failed, opened, clicked, unsubscribed, downloaded; and the mail received in reply ' +
    'to it (In-Reply-To or References naming its Message-ID, docs/receiving.md).',
  params: transactionParams,
  success: [
    {
      status: 200,
      description: 'The events, oldest first, and the replies received, oldest first (at most 100).',
      schema: z.object({ data: z.array(transactionEvent), replies: z.array(transactionReply) }),
    },
  ],
  errors: ['not_found'],
});

export const cancelTransaction = reportOperation('POST /v1/transactions/{uuid}/cancel', {
  summary: 'Cancel a scheduled message',
  description:
    'The Transaction Info modal’s Cancel: the message this transaction belongs to, sent with `scheduled_at` and ' +
    'still waiting, is canceled for good (every recipient of it); nothing is sent. One no longer scheduled is 422.',
  params: transactionParams,
  success: [{ status: 204, description: 'Canceled.' }],
  errors: ['forbidden', 'not_found', 'unprocessable'],
});

export const groupReport = reportOperation('POST /v1/transaction-groups/reports', {
  summary: 'A group’s report',
  description:
    `One page of a report (overview, sent, opens, clicks, failed, bounced) over a group’s transactions, ` +
    `with the group’s daily series (the last 29 days by default, at most 400). ${dateHelp} A malformed, unknown or ` +
    `another account’s group_uuid answers 404.`,
  body: reportBody,
  bodyExample: {
    report_type: 'opens',
    group_uuid: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4',
    start_date: '2026-11-01',
    end_date: '2026-11-24',
    page: 1,
  },
  success: [
    {
      status: 200,
      description: 'The page of rows and the daily series.',
      schema: z.object({
        transactions: pageOf(reportTransaction, reportPageMeta),
        dailyStats: z.array(dailyStat),
      }),
    },
  ],
  errors: ['not_found'],
});

const overviewAnswer = z.object({ overviewStats });

export const postGroupOverview = reportOperation('POST /v1/transaction-groups/overview', {
  summary: 'A group’s overview figures',
  description:
    `Sent, delivered, failed, bounced, opened and clicked over ` +
    `the range, each with its share in per cent. ${dateHelp}`,
  body: groupOverviewBody,
  bodyExample: { group_uuid: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4', start_date: '2026-11-01', end_date: '2026-11-24' },
  success: [{ status: 200, description: 'The figures.', schema: overviewAnswer }],
  errors: ['not_found'],
});

export const getGroupOverview = queryTwin(postGroupOverview, groupOverviewBody);

export const postLinks = reportOperation('POST /v1/links', {
  summary: 'A group’s clicked links',
  description:
    'One page (10 rows) of the links clicked in a group’s messages with their click counts; sort keys clicks ' +
    '(default), unique_clicks, link, subject; search_query matches part of the URL or subject.',
  body: reportBody,
  bodyExample: { report_type: 'clicks', group_uuid: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4', page: 1 },
  success: [{ status: 200, description: 'One page of links.', schema: linkPage }],
  errors: ['not_found'],
});

export const getLinks = queryTwin(postLinks, linksQuery, '; report_type may be left out');

export const queueExport = exportOperation('POST /v1/transaction-groups/reports/export', {
  summary: 'Export a report as CSV',
  description:
    'Queues a CSV of the whole report (the report body with isExport: ' +
    'true); the requester gets a mail with a link to it when it is written.',
  body: reportBody,
  bodyExample: { report_type: 'sent', group_uuid: '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4', isExport: true },
  success: [
    {
      status: 200,
      description: 'Queued.',
      schema: messageAnswer.extend({ uuid: z.string() }),
      example: { message: 'Report queued', uuid: '9b2e…' },
    },
  ],
  errors: ['not_found'],
});

export const viewExport = exportOperation('POST /v1/transaction-groups/export-view', {
  summary: 'An export’s state',
  description: 'Whether an export is ready; when it is, a token that downloads it for 10 minutes.',
  body: exportViewBody,
  bodyExample: { uuid: '9b2f6c1e-4d7a-4e8b-a1c3-5f0e2d9b7a64' },
  success: [
    {
      status: 200,
      description: 'Ready: the token downloads it.',
      schema: z.object({
        fileName: z.string(),
        token: z.string(),
        state: z.literal('ready'),
        rows: z.number().int(),
        expiresAt: z.number(),
      }),
    },
    {
      status: 202,
      description: 'Still being written: ask again later.',
      schema: z.object({ fileName: z.string(), token: z.null(), state: z.literal('queued') }),
    },
    { status: 204, description: 'No such export: unknown, expired, or another account’s.' },
  ],
  errors: ['precondition_failed', 'unprocessable'],
});

export const downloadExport = exportOperation('GET /v1/transaction-groups/export-download/{token}/{uuid}', {
  summary: 'Download an export',
  description: 'The CSV file, as an attachment.',
  params: z.object({
    token: z.string().max(200).openapi({ description: 'The signed download token the export page gave.' }),
    uuid: uuidId('The export’s uuid; anything else answers 404.'),
  }),
  success: [{ status: 200, description: 'The CSV.', content: { 'text/csv': 'The report’s rows, UTF-8.' } }],
  errors: ['forbidden', 'not_found'],
});

export const reportOperations = [
  getDashboard,
  getQuota,
  postDashboardOverview,
  searchTransactions,
  searchGroups,
  getTransactionEvents,
  cancelTransaction,
  groupReport,
  postGroupOverview,
  getGroupOverview,
  postLinks,
  getLinks,
  queueExport,
  viewExport,
  downloadExport,
];
