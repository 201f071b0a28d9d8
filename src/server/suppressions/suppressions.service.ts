// The Suppression List screen's calls (docs/console-reports.md §2 "Suppression List", §7 "Suppression"):
// adding addresses by hand (origin 'user'), searching the list, and removing one address. Only
// users allowed to send transactions may use them (docs/console.md §6).
import type { z } from 'zod';
import type * as contract from '../../contract/webhooks.ts';
import type { AppContext } from '../core/context.ts';
import type { Database } from '../db/database.ts';
import type { SuppressionOrigin } from '../db/schema.ts';
import { DomainError } from '../core/errors.ts';
import { inTransaction } from '../core/transaction.ts';
import { AddressError, parseEmail } from '../core/addresses.ts';
import * as repo from './suppressions.repository.ts';

/**
 * Rows per page of POST /v1/suppression/search; the spec names none for this list, so its fixture page size
 * (docs/console-reports.md §9: 10).
 */
export const SUPPRESSION_PAGE_SIZE = 10;
// an invalid line is echoed back; a pasted novel should not be
const ECHO_MAX_CHARS = 120;

/** A line of the request that is not an address: its 1-based position in `emails`, the text, why. */
export interface InvalidLine {
  line: number;
  value: string;
  message: string;
}

export interface AddResult {
  /** Addresses newly put on the list. */
  added: number;
  /** Addresses that were on the list already (they keep their origin and date). */
  already: number;
  invalid: InvalidLine[];
}

/** An entry as the console shows it (docs/console-reports.md §3 "Suppression entry"). */
export interface SuppressionWire {
  email: string;
  origin: SuppressionOrigin;
  suppressed_timestamp: string;
}

export interface SuppressionPage {
  data: SuppressionWire[];
  meta: { current_page: number; per_page: number; total: number; last_page: number };
}

export function suppressionToWire(row: repo.SuppressionRow): SuppressionWire {
  return { email: row.email, origin: row.origin, suppressed_timestamp: row.created_at.toISOString() };
}

function echo(value: string): string {
  return value.length > ECHO_MAX_CHARS ? `${value.slice(0, ECHO_MAX_CHARS)}…` : value;
}

/**
 * Splits request lines into the addresses to add and the invalid lines. Addresses are normalised
 * as parseEmail does for sending (trimmed, domain lower-cased and in ASCII form) and merged when
 * they differ only in case, because sending matches the list case-insensitively. Blank lines are
 * skipped (docs/console-reports.md §5: "blank lines dropped") but keep their place in the numbering.
 */
export function sortLines(lines: string[]): { emails: string[]; invalid: InvalidLine[] } {
  const emails = new Map<string, string>();
  const invalid: InvalidLine[] = [];
  lines.forEach((raw, index) => {
    const value = raw.trim();
    if (value === '') return;
    try {
      const email = parseEmail(value);
      if (!emails.has(email.toLowerCase())) emails.set(email.toLowerCase(), email);
    } catch (err) {
      if (!(err instanceof AddressError)) throw err;
      invalid.push({ line: index + 1, value: echo(value), message: `'${echo(value)}' is not a valid email address` });
    }
  });
  return { emails: [...emails.values()], invalid };
}

/**
 * Puts the valid addresses of `lines` on the customer's list with origin 'user' and reports the
 * invalid ones. When no line holds a valid address nothing is stored and the call fails with the
 * invalid lines as details.
 */
export function addSuppressions(ctx: AppContext, customerId: number, lines: string[]): Promise<AddResult> {
  return inTransaction(ctx.db, (trx) => addIn(trx, customerId, lines));
}

async function addIn(trx: Database, customerId: number, lines: string[]): Promise<AddResult> {
  const { emails, invalid } = sortLines(lines);
  if (emails.length === 0) {
    if (invalid.length === 0) throw new DomainError('validation_failed', 'Enter at least one email address');
    const more =
      invalid.length > 1 ? ` (and ${invalid.length - 1} more invalid line${invalid.length > 2 ? 's' : ''})` : '';
    throw new DomainError('validation_failed', `No address was added: ${invalid[0].message}${more}`, {
      details: invalid,
    });
  }
  const listed = await repo.findListed(
    trx,
    customerId,
    emails.map((e) => e.toLowerCase()),
  );
  const fresh = emails.filter((e) => !listed.has(e.toLowerCase()));
  // a concurrent add of the same spelling is absorbed by the primary key and counts as already listed
  const added = fresh.length ? (await repo.insertSuppressions(trx, customerId, fresh, 'user')).length : 0;
  return { added, already: emails.length - added, invalid };
}

/**
 * Takes `email` off the customer's list, in every spelling that sending would match; 404 when it
 * is not there. A valid address is normalised first, so `Bob@EXAMPLE.com` finds `bob@example.com`.
 */
export function removeSuppression(ctx: AppContext, customerId: number, email: string): Promise<void> {
  return inTransaction(ctx.db, (trx) => removeIn(trx, customerId, email));
}

async function removeIn(trx: Database, customerId: number, email: string): Promise<void> {
  let key = email.trim();
  try {
    key = parseEmail(key);
  } catch (err) {
    if (!(err instanceof AddressError)) throw err;
    // not an address we would accept today: still try it as stored (older entries, bounces)
  }
  const removed = key === '' ? 0 : await repo.deleteSuppression(trx, customerId, key.toLowerCase());
  if (removed === 0) throw new DomainError('not_found', `${echo(email)} is not on the suppression list`);
}

/**
 * POST /v1/suppression/search's answer to a checked body; also the page's first page, rendered on the server.
 * One page of the customer's list: entries whose address contains `email` (any case), newest first;
 * a `suppressed_origin` of '' or 'all' is every origin.
 */
export async function answerSuppressionSearch(
  ctx: AppContext,
  customerId: number,
  body: z.infer<typeof contract.searchSuppressionsBody>,
): Promise<SuppressionPage> {
  const { db } = ctx;
  const origin = body.suppressed_origin ?? '';
  const filter: repo.SuppressionFilter = {
    contains: (body.email ?? '').trim().toLowerCase(),
    origin: origin === '' || origin === 'all' ? null : origin,
  };
  const perPage = SUPPRESSION_PAGE_SIZE;
  const [rows, total] = await Promise.all([
    repo.searchSuppressions(db, customerId, filter, perPage, (body.page - 1) * perPage),
    repo.countSuppressions(db, customerId, filter),
  ]);
  return {
    data: rows.map(suppressionToWire),
    meta: { current_page: body.page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}
