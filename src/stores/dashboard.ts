// The Transactional Dashboard's charts and quota (docs/console.md §2, §7): the daily series of POST
// /v1/dashboard/overview for the range (the overview chart and the delivery breakdown share it) and
// GET /v1/dashboard/get-quota for the Monthly Quota bar. Failures are silent (§8); a panel without
// data says so and offers a retry.
import { atom } from 'nanostores';
import type { DailyStatWire } from '../lib/wire.ts';
import { call } from '../lib/api.ts';
import { chosenRange, currentRange } from './date-range.ts';

export type { DailyStatWire };

export interface OverviewState {
  status: 'idle' | 'loading' | 'loaded' | 'failed';
  /** One entry per UTC day of the range, oldest first. */
  days: DailyStatWire[];
}

export interface QuotaState {
  status: 'idle' | 'loading' | 'loaded' | 'failed';
  sent: number;
  maximum: number;
}

export const overview = atom<OverviewState>({ status: 'idle', days: [] });
export const quota = atom<QuotaState>({ status: 'idle', sent: 0, maximum: 0 });

let latestOverview = 0;

/** Loads the range's daily series; an answer to an older request is dropped. */
export async function loadOverview(): Promise<void> {
  const request = ++latestOverview;
  const range = currentRange();
  overview.set({ ...overview.get(), status: 'loading' });
  try {
    const answer = await call('POST /v1/dashboard/overview', {
      body: { startDate: range.start, endDate: range.end },
    });
    if (request === latestOverview) overview.set({ status: 'loaded', days: answer.dailyStats });
  } catch {
    if (request === latestOverview) overview.set({ status: 'failed', days: [] });
  }
}

/** The first island that needs the series loads it; the others find it loading. */
export function ensureOverview(): void {
  if (overview.get().status === 'idle') void loadOverview();
}

/** Loads the quota; the range is sent as docs/console.md §7 says, though the quota is per calendar month. */
export async function loadQuota(): Promise<void> {
  quota.set({ ...quota.get(), status: 'loading' });
  try {
    const answer = await call('GET /v1/dashboard/get-quota');
    quota.set({ status: 'loaded', sent: answer.quota.sent, maximum: answer.quota.maximum });
  } catch {
    quota.set({ ...quota.get(), status: 'failed' });
  }
}

// a new date range: the charts follow it
chosenRange.listen(() => void loadOverview());
