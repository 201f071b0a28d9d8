// Row types of every table, for Kysely. Migrations in ./migrations own the truth; keep these in step.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

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
}

/** The permission flags of spec core §3/§6, stored as booleans and sent as 'yes'/'no'. */
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

export interface Tables {
  enterprises: EnterprisesTable;
  customers: CustomersTable;
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  auth_challenges: AuthChallengesTable;
}

export type Enterprise = Selectable<EnterprisesTable>;
export type Customer = Selectable<CustomersTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Session = Selectable<SessionsTable>;
