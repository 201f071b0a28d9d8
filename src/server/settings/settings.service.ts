// Sending options of the Settings page (docs/console.md §2 Settings, §3 UI settings): who may change
// them, the change itself, and the one mapping to the console's wire names.
import type { SendingOption } from '../../contract/values.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import { invalidateLookups } from '../lookup-cache.ts';
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

/**
 * Sets one sending option of the customer inside the caller's transaction. Lookup caches are
 * invalidated (here and, at commit, in other processes) so that the next message sent already
 * follows the new setting; the caller clears this process's caches again after the commit.
 */
export async function setSendingOption(
  ctx: AppContext,
  trx: Database,
  customerId: number,
  option: SendingOption,
  value: boolean,
): Promise<UiSettingsWire> {
  const options = await repo.updateSendingOption(trx, customerId, option, value);
  if (!options) throw new ApiError('not_found', 'No such customer');
  await invalidateLookups(ctx, trx);
  return settingsToWire(options);
}
