// Row types of every table, for Kysely. Migrations in ./migrations own the truth; keep these in step.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  ApiKeyPermission,
  DeliveredStatus,
  EventType,
  Permission,
  SuppressionOrigin,
  TransStatus,
} from '../../contract/values.ts';

// the statuses, origins and permissions are the contract's (what the API sends), named here for the tables
export type { ApiKeyPermission, DeliveredStatus, EventType, Permission, SuppressionOrigin, TransStatus };

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface EnterprisesTable {
  id: Generated<number>;
  name: string;
  header_colour: string;
  logo_url: string | null;
  parent_url: string | null;
  sms_enabled: Generated<boolean>;
  external_id: string | null;
  created_at: CreatedAt;
}

export interface CustomersTable {
  id: Generated<number>;
  enterprise_id: number;
  name: string;
  monthly_quota: Generated<number>;
  is_reseller: Generated<boolean>;
  external_id: string | null;
  created_at: CreatedAt;
  track_opens: Generated<boolean>;
  track_links: Generated<boolean>;
  disable_suppression: Generated<boolean>;
  /** The customer our own mail (domain verification) is sent as; never signs in. */
  is_system: Generated<boolean>;
}

export interface UsersTable {
  id: Generated<number>;
  customer_id: number;
  email: string;
  name: string;
  password_hash: string | null;
  picture_url: string | null;
  can_super_administrator: Generated<boolean>;
  can_customer_administrator: Generated<boolean>;
  can_domains_access: Generated<boolean>;
  can_archive_report_access: Generated<boolean>;
  can_enterprise_templates: Generated<boolean>;
  can_sms_edit: Generated<boolean>;
  can_message_report_access: Generated<boolean>;
  can_send_transactions: Generated<boolean>;
  external_id: string | null;
  created_at: CreatedAt;
  last_login_at: Timestamp | null;
}

export interface SessionsTable {
  /** sha256 of the cookie token; the token itself is never stored. */
  token_hash: string;
  user_id: number;
  created_at: CreatedAt;
  expires_at: Timestamp;
  ip: string | null;
  user_agent: string | null;
}

export interface LoginFailuresTable {
  id: Generated<number>;
  /** 'email:<address>' or 'ip:<address>' */
  key: string;
  at: CreatedAt;
}

export interface AuthChallengesTable {
  /** sha256 of the nonce sent to the parent platform. */
  nonce_hash: string;
  redirect: string | null;
  expires_at: Timestamp;
}

/** API keys and SMTP credentials share one shape. */
export interface CredentialsTable {
  id: Generated<number>;
  customer_id: number;
  username: string;
  secret_sealed: string;
  lookup_digest: string;
  created_at: CreatedAt;
  revoked_at: Timestamp | null;
}

/** A named API key (migration 021): the token's SHA-256 only, never the token. */
export interface NamedApiKeysTable {
  id: string;
  customer_id: number;
  name: string;
  permission: ApiKeyPermission;
  domain_id: number | null;
  token_hash: string;
  /** The token's first characters, to tell keys apart in a list. */
  token_prefix: string;
  created_at: CreatedAt;
  last_used_at: Timestamp | null;
}

export interface DnsCheck {
  ok: boolean;
  found: string | null;
  expected: string;
  detail?: string;
}

export interface DomainsTable {
  id: Generated<number>;
  customer_id: number;
  domain: string;
  sending_verified: Generated<boolean>;
  verification_email: string | null;
  verification_token_hash: string | null;
  verification_expires_at: Timestamp | null;
  dkim_selector: string;
  dkim_private_key_sealed: string;
  dkim_public_key: string;
  dns_checked_at: Timestamp | null;
  dns_results: ColumnType<Record<string, DnsCheck> | null, string | null, string | null>;
  created_at: CreatedAt;
  verified_at: Timestamp | null;
  verification_sent_at: Timestamp | null;
  /** whether the MX listener takes mail for the domain (migration 027) */
  receiving_enabled: Generated<boolean>;
  /** refuse at DATA a message failing DMARC under p=reject, instead of keeping it flagged */
  inbound_refuse_dmarc_reject: Generated<boolean>;
  /** null: the account's setting (customers.track_opens) applies (migration 025). */
  open_tracking: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  click_tracking: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  tls: ColumnType<DomainTls, DomainTls | undefined, DomainTls>;
  region: ColumnType<string, string | undefined, string>;
  capabilities: ColumnType<DomainCapabilities, string | undefined, string>;
  custom_return_path: ColumnType<string | null, string | null | undefined, string | null>;
  tracking_subdomain: ColumnType<string | null, string | null | undefined, string | null>;
}

export type DomainTls = 'opportunistic' | 'enforced';
/** As given through the Resend-compatible API; `sending` and `receiving` are 'enabled' or 'disabled'. */
export type DomainCapabilities = Record<string, string>;

export interface TransactionGroupsTable {
  id: Generated<number>;
  uuid: string;
  customer_id: number;
  name: string;
  created_at: CreatedAt;
  last_send_at: Timestamp | null;
}

export interface Address {
  email: string;
  name?: string | null;
}

export interface StoredAttachment {
  filename: string;
  content_type: string;
  /** base64 */
  content: string;
  /** The Content-ID the HTML refers to it by (`cid:`): sent inline. */
  content_id?: string;
}

type Json<T> = ColumnType<T, string, string>;

export interface MessagesTable {
  id: Generated<number>;
  customer_id: number;
  /** Null once the domain was removed (migration 020); never while the message is queued. */
  domain_id: number | null;
  from_email: string;
  from_name: string | null;
  reply_to: Json<Address[] | null> | null;
  to_header: Json<Address[]>;
  cc_header: Json<Address[] | null> | null;
  subject: string;
  headers: Json<Record<string, string> | null> | null;
  html: string | null;
  text: string | null;
  attachments: Json<StoredAttachment[] | null> | null;
  raw: Buffer | null;
  tags: Json<string[] | null> | null;
  metadata: Json<Record<string, unknown> | null> | null;
  created_at: CreatedAt;
  /** The online attachment link the message carries (migration 011). */
  attachment_group_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface TransactionsTable {
  id: Generated<number>;
  uuid: string;
  customer_id: number;
  message_id: number;
  group_id: number;
  to_email: string;
  to_name: string | null;
  status: ColumnType<TransStatus, TransStatus | undefined, TransStatus>;
  delivered_status: ColumnType<DeliveredStatus, DeliveredStatus | undefined, DeliveredStatus>;
  message_id_header: string;
  queued_at: CreatedAt;
  sent_at: Timestamp | null;
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  locked_until: Timestamp | null;
  last_reply: string | null;
  bounce_type: string | null;
  bounce_reason: string | null;
  open_count: Generated<number>;
  click_count: Generated<number>;
  first_open_at: Timestamp | null;
  first_click_at: Timestamp | null;
  /** The destination site of its last attempt (delivery/sites.ts). */
  site: string | null;
  /** When a message accepted with `scheduled_at` is to be sent (migration 019); null when at once. */
  scheduled_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/**
 * How many of a customer's transactions accepted on a UTC day, in a group, are in a state
 * (migration 007: kept by triggers on transactions; read by transaction searches for exact totals).
 */
export interface TransactionCountsTable {
  customer_id: number;
  group_id: number;
  /** UTC day of queued_at */
  day: string;
  status: TransStatus;
  delivered_status: DeliveredStatus;
  opened: boolean;
  clicked: boolean;
  /** The bounce kind, 'hard' or 'soft'; '' for none (migration 029). */
  bounce: string;
  n: ColumnType<number, number, number>;
}

export interface EventsTable {
  id: Generated<number>;
  customer_id: number;
  transaction_id: number;
  type: EventType;
  at: CreatedAt;
  data: Json<Record<string, unknown> | null> | null;
}

/**
 * What daily_stats counts on the day it happens, to messages accepted on any day (migration 029):
 * people's opens and clicks, machines' beside them (migration 017) and spam complaints received
 * (migration 018). The states of transactions are counted by transaction_counts (stats/figures.ts).
 */
export const STAT_COLUMNS = ['opens', 'clicks', 'machine_opens', 'machine_clicks', 'complaints'] as const;
export type StatColumn = (typeof STAT_COLUMNS)[number];

export type DailyStatsTable = {
  customer_id: number;
  group_id: number;
  day: ColumnType<string, string, never>;
} & { [K in StatColumn]: Generated<number> };

export interface QuotaUsageTable {
  customer_id: number;
  month: ColumnType<string, string, never>;
  used: Generated<number>;
}

export interface SuppressionsTable {
  customer_id: number;
  email: string;
  origin: SuppressionOrigin;
  created_at: CreatedAt;
  /** A uuid, Resend's name for the entry (023). */
  id: Generated<string>;
  /** The transaction whose bounce or complaint listed the address; null when added by hand (023). */
  source_transaction_id: number | null;
}

export interface IdempotencyKeysTable {
  customer_id: number;
  key: string;
  request_hash: string;
  status: number;
  response: Json<unknown>;
  created_at: CreatedAt;
}

export interface WebhooksTable {
  id: Generated<number>;
  customer_id: number;
  url: string;
  verb: Generated<string>;
  status: Generated<string>;
  auth_type: string | null;
  auth_details_sealed: string | null;
  event_types: ColumnType<string[], string, string>;
  field_set: Generated<string>;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** whsec_… sealed (migration 008) */
  secret_sealed: string | null;
  /** why the service disabled it (410 Gone) */
  disabled_reason: string | null;
  /** its id on the Resend-compatible surface (migration 022) */
  uuid: Generated<string>;
  /** what `email.received` carries: 'metadata' or 'full' (migration 028; docs/receiving.md) */
  received_content: Generated<string>;
  /** with 'full': attachments inline up to this many bytes in all, else as links */
  received_inline_max_bytes: Generated<number>;
}

export interface LinksTable {
  id: Generated<number>;
  token: string;
  customer_id: number;
  transaction_id: number;
  url: string;
  clicks: Generated<number>;
  first_click_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface Tables {
  enterprises: EnterprisesTable;
  customers: CustomersTable;
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  auth_challenges: AuthChallengesTable;
  api_keys: CredentialsTable;
  smtp_credentials: CredentialsTable;
  named_api_keys: NamedApiKeysTable;
  domains: DomainsTable;
  transaction_groups: TransactionGroupsTable;
  messages: MessagesTable;
  transactions: TransactionsTable;
  transaction_counts: TransactionCountsTable;
  events: EventsTable;
  daily_stats: DailyStatsTable;
  quota_usage: QuotaUsageTable;
  suppressions: SuppressionsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhooks: WebhooksTable;
  links: LinksTable;
  webhook_requests: WebhookRequestsTable;
  webhook_attempts: WebhookAttemptsTable;
  attachment_groups: AttachmentGroupsTable;
  attachment_assets: AttachmentAssetsTable;
  attachment_branding: AttachmentBrandingTable;
  link_stats: LinkStatsTable;
  exports: ExportsTable;
  attachment_downloads: AttachmentDownloadsTable;
  templates: TemplatesTable;
  delivery_sites: DeliverySitesTable;
  delivery_site_slots: DeliverySiteSlotsTable;
  inbound_emails: InboundEmailsTable;
}

/** A header of a received message, in its order, as written (unfolded). */
export interface InboundHeader {
  name: string;
  value: string;
}

/** An attachment of a received message; its bytes are the file `key` in the storage. */
export interface InboundAttachmentRow {
  id: string;
  filename: string | null;
  content_type: string;
  content_disposition: string | null;
  content_id: string | null;
  size: number;
  key: string;
}

/** A received message (migration 027; inbound/). */
export interface InboundEmailsTable {
  id: string;
  customer_id: number;
  domain_id: number | null;
  received_at: ColumnType<Date, Date | string | undefined, never>;
  envelope_from: string;
  received_for: Json<string[]>;
  remote_ip: string | null;
  helo: string | null;
  from_address: string;
  to_addresses: Json<string[]>;
  cc_addresses: Json<string[]>;
  bcc_addresses: Json<string[]>;
  reply_to_addresses: Json<string[]>;
  subject: string;
  message_id: string | null;
  in_reply_to: string | null;
  references: Json<string[]>;
  sent_at: Timestamp | null;
  text: string | null;
  html: string | null;
  headers: Json<InboundHeader[]>;
  attachments: Json<InboundAttachmentRow[]>;
  raw_size: ColumnType<number, number, never>;
  spf: string;
  dkim: string;
  dmarc: string;
  dmarc_policy: string | null;
  auth_headers: string;
  flagged: Generated<boolean>;
  reply_to_transaction_id: number | null;
}

/** A destination site's shared state (migration 014; delivery/sites.ts). */
export interface DeliverySitesTable {
  site: string;
  conn_limit: number | null;
  paused_until: Timestamp | null;
  pause_seconds: Generated<number>;
  suspended_until: Timestamp | null;
  last_reply: string | null;
  last_reply_at: Timestamp | null;
  delivered: Generated<number>;
  deferred: Generated<number>;
  failed: Generated<number>;
}

/** A connection slot of a site, leased by one worker process (migration 014). */
export interface DeliverySiteSlotsTable {
  site: string;
  slot: number;
  holder: string;
  until: Timestamp;
}

/** The webhook outbox and log (migration 008): one row per event sent to a webhook. */
export interface WebhookRequestsTable {
  id: Generated<number>;
  customer_id: number;
  webhook_id: number | null;
  msg_id: Generated<string>;
  transaction_id: number | null;
  event_type: string;
  event_at: Timestamp;
  event_data: Json<Record<string, unknown> | null> | null;
  url: string;
  verb: string;
  field_set: string;
  payload: Json<Record<string, unknown> | null> | null;
  status: Generated<'pending' | 'success' | 'failed'>;
  attempts: Generated<number>;
  retry_step: Generated<number>;
  next_attempt_at: Timestamp | null;
  last_status_code: number | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** the received message of an `email.received` request (migration 028) */
  inbound_email_id: string | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  request_id: number;
  at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  next_retry_at: Timestamp | null;
}

export type Enterprise = Selectable<EnterprisesTable>;
export type Customer = Selectable<CustomersTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Domain = Selectable<DomainsTable>;

/** Online attachments (migration 011): a download link. */
export interface AttachmentGroupsTable {
  id: Generated<number>;
  customer_id: number;
  public_id: string;
  integration_id: string;
  name: string;
  expires_at: Timestamp | null;
  access_limit: Generated<number>;
  downloads: Generated<number>;
  created_at: CreatedAt;
}

export interface AttachmentAssetsTable {
  id: Generated<number>;
  group_id: number;
  customer_id: number;
  name: string;
  content_type: string;
  size: ColumnType<number, number, number>;
  storage_key: string;
  created_at: CreatedAt;
}

export interface BrandingColours {
  colour: string;
  text_colour: string;
}

export interface BrandingSettings {
  page: BrandingColours;
  button: BrandingColours;
  link: BrandingColours;
}

export interface AttachmentBrandingTable {
  customer_id: number;
  settings: Json<BrandingSettings>;
  logo_key: string | null;
  logo_name: string | null;
  logo_type: string | null;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** Clicks per link (URL and subject) of a group, per UTC day of the transactions' acceptance (migration 009). */
export interface LinkStatsTable {
  customer_id: number;
  group_id: number;
  day: ColumnType<string, string, never>;
  link_key: string;
  url: string;
  subject: string;
  clicks: ColumnType<number, number | undefined, number>;
  unique_clicks: ColumnType<number, number | undefined, number>;
}

export type ExportStatus = 'queued' | 'ready' | 'failed';

/** A report export job and its CSV (migration 009). */
export interface ExportsTable {
  id: Generated<number>;
  uuid: string;
  customer_id: number;
  user_id: number;
  group_id: number;
  report_type: string;
  range_from: Timestamp;
  range_before: Timestamp;
  search_query: string | null;
  status: ColumnType<ExportStatus, ExportStatus | undefined, ExportStatus>;
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  locked_until: Timestamp | null;
  file_key: string | null;
  file_name: string;
  row_count: ColumnType<number | null, number | null | undefined, number | null>;
  size_bytes: ColumnType<number | null, number | null | undefined, number | null>;
  error: string | null;
  mailed_at: Timestamp | null;
  created_at: CreatedAt;
  completed_at: Timestamp | null;
  expires_at: Timestamp;
}

/** A download counted against a link's access limit (migration 013): who may resume it uncounted. */
export interface AttachmentDownloadsTable {
  id: Generated<number>;
  group_id: number;
  asset_id: number;
  /** HMAC of the client address and the recipient token (never the address itself) */
  client: string;
  at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type TemplateStatus = 'draft' | 'published';

/** A variable a template declares: sends must give it, or its fallback is used (migration 024). */
export interface TemplateVariable {
  key: string;
  type: 'string' | 'number';
  fallback_value: string | number | null;
  created_at: string;
  updated_at: string;
}

/** Migration 010: the customer's templates and the gallery's (customer_id null). */
export interface TemplatesTable {
  id: Generated<number>;
  uuid: string;
  customer_id: number | null;
  system_key: string | null;
  alias: string | null;
  name: string;
  status: Generated<TemplateStatus>;
  from_name: string | null;
  from_email: string | null;
  reply_email: string | null;
  subject: string | null;
  description: string | null;
  content_html: Generated<string>;
  content_text: string | null;
  published_html: string | null;
  /** What sending uses: the fields as they were at the last Publish (migration 015). */
  published_subject: string | null;
  published_text: string | null;
  published_from_name: string | null;
  published_from_email: string | null;
  published_reply_email: string | null;
  /** Declared variables of the edited and of the published version (migration 024); null: none declared. */
  variables: Json<TemplateVariable[] | null> | null;
  published_variables: Json<TemplateVariable[] | null> | null;
  version: Generated<number>;
  published_at: Date | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
export type Template = Selectable<TemplatesTable>;
