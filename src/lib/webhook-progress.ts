// How the console names a logged webhook request's progress: the Webhook Logs table and
// its More info modal say the same. A replayed request reads 'Replayed, queued' until its new
// attempt is recorded; only a request whose last try failed reads 'Retrying'.
import type { LogProgress } from './wire.ts';

export const PROGRESS_LABEL: Record<LogProgress, string> = {
  queued: 'Queued',
  replayed: 'Replayed, queued',
  retrying: 'Retrying',
  success: 'Success',
  failed: 'Failed',
};

/** Bulma tag colours: blue for waiting without a failure, yellow for retrying after one. */
export const PROGRESS_TAG: Record<LogProgress, string> = {
  queued: 'is-info is-light',
  replayed: 'is-info is-light',
  retrying: 'is-warning',
  success: 'is-success',
  failed: 'is-danger',
};
