// The timeline of one transaction in the Transaction Info modal (our addition to docs/console.md
// §2's modal): its events oldest first — queued, sent, delivered, deferred,
// bounced or failed with the remote server's reply, opens, clicks, unsubscribes, complaints, and a
// scheduled message's moment or its cancellation — as wire objects.
import type { AppContext } from '../core/context.ts';
import type { EventType } from '../db/schema.ts';
import { listTransactionEvents } from '../events/events.repository.ts';
import { DomainError } from '../core/errors.ts';
import { isUuid } from '../../contract/fields.ts';
import { ANSWER_CATEGORIES, type AnswerCategory, MACHINE_RULE_IDS, type MachineRuleId } from '../../contract/values.ts';
import { findIdByUuid, repliesToTransaction } from './transactions.repository.ts';
import { unixSeconds } from './transactions.service.ts';

/**
 * What an event says beyond its type and time; only the keys that apply are present. Written by
 * the sending service (failed: reason), the delivery worker (reply, attempt, bounce_type, category,
 * next_attempt_at), the bounce receiver (bounce_type, status, reason, category; a complaint's
 * feedback_type, user_agent and arrival_date), tracking (url, ip, user_agent, machine, machine_rule)
 * and the unsubscribe pages (via).
 */
export interface TransactionEventData {
  /** The remote server's SMTP reply, e.g. '250 2.0.0 Ok: queued as 1234'. */
  reply?: string;
  /** The delivery attempt this outcome ended (1 for the first). */
  attempt?: number;
  /** Why the message failed or bounced (a refusal at acceptance, or the DSN's diagnostic). */
  reason?: string;
  bounce_type?: 'hard' | 'soft';
  /** The DSN's enhanced status code, e.g. '5.1.1'. */
  status?: string;
  /** What the remote's refusal or delay was about (delivery/remote-answer.ts), e.g. 'policy_block'. */
  category?: AnswerCategory;
  /** Unix seconds of the next attempt after a deferral. */
  next_attempt_at?: number;
  /** Unix seconds of the moment a scheduled message is to be sent. */
  scheduled_at?: number;
  /** The link clicked. */
  url?: string;
  ip?: string;
  /** An open's or click's client, or a complaint's feedback loop (the report's User-Agent). */
  user_agent?: string;
  /** Opens and clicks: whether a machine made it (tracking/machine-rules.ts), and the rule that said so. */
  machine?: boolean;
  machine_rule?: MachineRuleId;
  /** How the recipient unsubscribed or resubscribed: the page, the one-click header, mail, a feedback report. */
  via?: string;
  /** A complaint's Feedback-Type (RFC 5965 §3.1), e.g. 'abuse'. */
  feedback_type?: string;
  /** When the provider received the message a complaint is about: the report's Arrival-Date, ISO 8601 UTC. */
  arrival_date?: string;
  /** The online attachment's file downloaded, and the link's name. */
  file?: string;
  link?: string;
  /** Direct MX delivery: the MX host and address that answered last. */
  mx_host?: string;
  mx_address?: string;
  /** 'TLSv1.3'… of that session; absent without TLS (then `mx_host` is present). */
  tls_version?: string;
  tls_cipher?: string;
  /** The MTA-STS mode that applied, and under testing what enforce would have refused. */
  mta_sts?: 'enforce' | 'testing';
  mta_sts_failure?: string;
  /** Every host and address tried in the attempt and its answer, in order. */
  tried?: { host: string; address: string | null; reply: string }[];
}

export interface TransactionEventWire {
  type: EventType;
  /** Unix seconds (UTC). */
  time: number;
  data: TransactionEventData;
}

/** A received message that answers the transaction: the timeline's "Reply received" entry. */
interface TransactionReplyWire {
  /** The received message's id (its console page is /inbound/{id}). */
  id: string;
  /** Its From, `Name <address>` or the bare address. */
  from: string;
  /** Unix seconds (UTC) when it was received. */
  time: number;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function bounceType(value: unknown): 'hard' | 'soft' | undefined {
  return value === 'hard' || value === 'soft' ? value : undefined;
}

function category(value: unknown): AnswerCategory | undefined {
  return ANSWER_CATEGORIES.find((c) => c === value);
}

function machineRule(value: unknown): MachineRuleId | undefined {
  return MACHINE_RULE_IDS.find((r) => r === value);
}

function seconds(value: unknown): number | undefined {
  if (typeof value !== 'string' && !(value instanceof Date)) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : unixSeconds(at);
}

/** The one row → wire mapping of an event. */
export function eventToWire(row: {
  type: EventType;
  at: Date;
  data: Record<string, unknown> | null;
}): TransactionEventWire {
  const d = row.data ?? {};
  const data: TransactionEventData = {
    reply: text(d.reply),
    attempt: typeof d.attempt === 'number' ? d.attempt : undefined,
    reason: text(d.reason),
    // the worker writes bounce_type, the bounce receiver type
    bounce_type: bounceType(d.bounce_type) ?? bounceType(d.type),
    status: text(d.status),
    category: category(d.category),
    next_attempt_at: seconds(d.next_attempt_at),
    scheduled_at: seconds(d.scheduled_at),
    url: text(d.url),
    ip: text(d.ip),
    user_agent: text(d.user_agent),
    // opens and clicks recorded before machines were told apart carry nothing: people's
    machine: row.type === 'open' || row.type === 'click' ? d.machine === true : undefined,
    machine_rule: machineRule(d.machine_rule),
    via: text(d.via),
    feedback_type: text(d.feedback_type),
    arrival_date: text(d.arrival_date),
    file: text(d.file),
    link: text(d.link),
    mx_host: text(d.mx_host),
    mx_address: text(d.mx_address),
    tls_version: text(d.tls_version),
    tls_cipher: text(d.tls_cipher),
    mta_sts: d.mta_sts === 'enforce' || d.mta_sts === 'testing' ? d.mta_sts : undefined,
    mta_sts_failure: text(d.mta_sts_failure),
    tried: Array.isArray(d.tried)
      ? (d.tried as unknown[]).flatMap((h) => {
          const hop = h as Record<string, unknown>;
          return typeof hop?.host === 'string'
            ? [{ host: hop.host, address: text(hop.address) ?? null, reply: text(hop.reply) ?? '' }]
            : [];
        })
      : undefined,
  };
  for (const key of Object.keys(data) as (keyof TransactionEventData)[]) if (data[key] === undefined) delete data[key];
  return { type: row.type, time: unixSeconds(new Date(row.at)), data };
}

/**
 * The customer's transaction's events, oldest first, and the received replies to it (the timeline's
 * "Reply received" entries); not_found for an unknown uuid or another customer's.
 */
export async function transactionEvents(
  ctx: AppContext,
  customerId: number,
  uuid: string,
): Promise<{ data: TransactionEventWire[]; replies: TransactionReplyWire[] }> {
  const { db } = ctx;
  const id = isUuid(uuid) ? await findIdByUuid(db, 'transactions', customerId, uuid.toLowerCase()) : undefined;
  if (id === undefined) throw new DomainError('not_found', 'No such transaction');
  const [rows, replies] = await Promise.all([listTransactionEvents(db, id), repliesToTransaction(db, customerId, id)]);
  return {
    data: rows.map(eventToWire),
    replies: replies.map((r) => ({ id: r.id, from: r.from_address, time: unixSeconds(new Date(r.received_at)) })),
  };
}
