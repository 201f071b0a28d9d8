// The Groups tab (docs/console.md §2 Transactions): a search over the customer's transaction groups with
// their all-time totals, and the one row → wire mapping (docs/console.md §3 "Transaction group").
import type { AppContext } from '../core/context.ts';
import type { z } from 'zod';
import type * as contract from '../../contract/reports.ts';
import { GROUP_SORT_KEYS, type GroupSortKey } from '../../contract/values.ts';
import { figuresPerGroup } from '../stats/figures.ts';
import { type Figures, sentOf } from '../../lib/figures.ts';
import * as repo from './groups.repository.ts';
import type { PageMeta } from '../../contract/reports.ts';
import { PAGE_SIZE, either, pageMeta, resolveSort } from './report-input.ts';
import { unixSeconds } from './transactions.service.ts';
import { isUuid } from '../../contract/fields.ts';

const ORDER_OF: Record<GroupSortKey, repo.GroupOrder> = {
  group_last_send_date: 'last_send',
  group_create_date: 'created',
  group_name: 'name',
  requests: 'transactions',
  sent: 'sent',
  failed: 'failed',
  delivered: 'delivered',
  bounces: 'bounced',
  opens: 'opens',
  clicks: 'clicks',
};

/** A group as the console shows it. Dates are unix seconds (UTC); group_last_send_date 0 means never. */
export interface GroupWire {
  group_id: number;
  group_uuid: string;
  group_name: string;
  group_create_date: number;
  group_last_send_date: number;
  groupStats: {
    /**
     * Accepted transactions (the group list of docs/console-reports.md §2 shows Requests); an addition to the spec's
     * fields.
     */
    tgs_total_requests: number;
    tgs_total_sent: number;
    tgs_total_failed: number;
    tgs_total_delivered: number;
    tgs_total_bounces: number;
    tgs_total_opens: number;
    tgs_total_link_clicks: number;
  };
}

export interface GroupPage {
  data: GroupWire[];
  meta: Required<PageMeta>;
}

/** A group and its all-time figures (src/lib/figures.ts) on the wire. */
export function groupToWire(row: repo.GroupRow, totals: Figures): GroupWire {
  return {
    group_id: row.id,
    group_uuid: row.uuid,
    group_name: row.name,
    group_create_date: unixSeconds(row.created_at),
    group_last_send_date: unixSeconds(row.last_send_at),
    groupStats: {
      tgs_total_requests: totals.transactions,
      tgs_total_sent: sentOf(totals),
      tgs_total_failed: totals.failed,
      tgs_total_delivered: totals.delivered,
      tgs_total_bounces: totals.bounced,
      tgs_total_opens: totals.opens,
      tgs_total_link_clicks: totals.clicks,
    },
  };
}

/**
 * POST /v1/transaction-groups/search's answer to a checked body; also the Groups tab's first page.
 * One page of the customer's groups with their all-time figures.
 */
export async function answerGroupSearch(
  ctx: AppContext,
  customerId: number,
  body: z.infer<typeof contract.groupSearchBody>,
): Promise<GroupPage> {
  const contains = either(body.searchQuery, body.search_query, 'searchQuery/search_query') ?? null;
  const { key, direction } = resolveSort(GROUP_SORT_KEYS, 'group_last_send_date', {
    direction: body.order,
    key: body.orderBy,
    directionName: 'order',
    keyName: 'orderBy',
  });
  const perPage = PAGE_SIZE.groups;
  const { db } = ctx;
  const [rows, total] = await Promise.all([
    repo.pageGroups(db, customerId, contains, { by: ORDER_OF[key], direction }, perPage, (body.page - 1) * perPage),
    repo.countGroups(db, customerId, contains),
  ]);
  const totals = await figuresPerGroup(
    db,
    customerId,
    rows.map((r) => r.id),
  );
  return {
    data: rows.map((row) => groupToWire(row, totals.get(row.id)!)),
    meta: pageMeta(body.page, perPage, total, false),
  };
}

/** A report page's header (docs/console-reports.md): the customer's group, or null when unknown or another's. */
export async function reportGroup(
  ctx: AppContext,
  customerId: number,
  groupUuid: string,
): Promise<{ group_uuid: string; group_name: string } | null> {
  if (!isUuid(groupUuid)) return null;
  const group = await repo.findGroup(ctx.db, customerId, groupUuid.toLowerCase());
  return group ? { group_uuid: group.uuid, group_name: group.name } : null;
}
