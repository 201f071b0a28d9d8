// Sending options of the Settings page (docs/console.md §2 Settings, §3 UI settings): who may change
// them, the change itself, and the one mapping to the console's wire names.
import { SENDING_OPTIONS, type SendingOption } from '../../contract/values.ts';
import type { AppContext } from '../core/context.ts';
import type { Database } from '../db/database.ts';
import { DomainError } from '../core/errors.ts';
import { clearLookupCaches, invalidateLookups } from '../core/lookup-cache.ts';
import { inTransaction } from '../core/transaction.ts';
import { findCustomer } from '../accounts/accounts.repository.ts';
import { credentialsForConsole } from '../credentials/credentials.service.ts';
import * as repo from './settings.repository.ts';

/** The `settings` object of GET and POST /v1/ui-settings. */
export interface UiSettingsWire {
  tsetting_track_opens: boolean;
  tsetting_track_links: boolean;
  tsetting_disable_suppression: boolean;
}

export function settingsToWire(options: repo.SendingOptions): UiSettingsWire {
  return {
    tsetting_track_opens: options.track_opens,
    tsetting_track_links: options.track_links,
    tsetting_disable_suppression: options.disable_suppression,
  };
}

/** GET /v1/ui-settings: the customer's sending options and credentials, for the Settings and getting-started pages. */
export async function settingsForConsole(ctx: AppContext, customerId: number) {
  const customer = await findCustomer(ctx.db, customerId);
  if (!customer) throw new DomainError('not_found', 'No such customer');
  const credentials = await credentialsForConsole(ctx, customerId);
  return { settings: settingsToWire(customer), credentials: { ...credentials, isReseller: customer.is_reseller } };
}

export type SendingOptionChange = Partial<Record<SendingOption, boolean>>;

/** POST /v1/ui-settings: sets the one sending option `change` names, in its own transaction. */
export async function changeSendingOption(ctx: AppContext, customerId: number, change: SendingOptionChange) {
  const option = SENDING_OPTIONS.find((key) => change[key] !== undefined)!;
  const value = change[option]!;
  const settings = await inTransaction(ctx.db, (trx) => setSendingOption(ctx, trx, customerId, option, value));
  clearLookupCaches(ctx); // again after commit: a send during the transaction may have cached the old state
  return settings;
}

/**
 * Sets one sending option of the customer inside the caller's transaction. Lookup caches are
 * invalidated (here and, at commit, in other processes) so that the next message sent already
 * follows the new setting; the caller clears this process's caches again after the commit.
 */
async function setSendingOption(
  ctx: AppContext,
  trx: Database,
  customerId: number,
  option: SendingOption,
  value: boolean,
): Promise<UiSettingsWire> {
  const options = await repo.updateSendingOption(trx, customerId, option, value);
  if (!options) throw new DomainError('not_found', 'No such customer');
  await invalidateLookups(ctx, trx);
  return settingsToWire(options);
}
