// What console pages may use on the server, handed to Astro in `locals.bridge` by the HTTP server
// (or by the dev integration). Pages never import the database or services directly: Astro's
// bundle gets this one object, so both share one database connection.
import type { AppContext } from './core/context.ts';
import type { ResolvedSession } from './accounts/accounts.service.ts';
import { type SessionWire, resolveSession, sessionToWire } from './auth/auth.service.ts';
import { isSecureRequest, sessionCookieOptions, type CookieOptions } from './http/session-cookie.ts';
import {
  confirmVerificationLink,
  inspectVerificationLink,
  type VerificationLinkState,
} from './verification/verification.service.ts';
import { customerDomain, domainToWire, type DomainWire, listDomainsForConsole } from './domains/domains.service.ts';
import { DomainError } from './core/errors.ts';
import { changeSubscription, isKnownTransaction } from './unsubscribe/unsubscribe.service.ts';
import { answerGroupSearch, reportGroup } from './reports/groups.service.ts';
import { ATTACHMENT_PAGE_SIZE } from '../contract/values.ts';
import { type BrandingWire, type GroupWire, getBranding, listGroups } from './attachments/attachments.service.ts';
import { type WebhookLogWire, type WebhookWire, searchLogs, webhooksForConsole } from './webhooks/webhooks.service.ts';
import type { PageMeta } from '../contract/reports.ts';
import { searchTemplates, type TemplatePage } from './templates/templates.service.ts';
import { check } from './core/check.ts';
import { utcDay } from '../lib/dates.ts';
import { searchSuppressionsBody } from '../contract/webhooks.ts';
import { dashboardQuery, groupSearchBody, reportBody, transactionSearchBody } from '../contract/reports.ts';
import { answerSuppressionSearch } from './suppressions/suppressions.service.ts';
import { answerDashboard, showsDashboard } from './dashboard/dashboard.service.ts';
import { answerTransactionSearch } from './reports/searches.service.ts';
import { answerGroupReport, answerLinks } from './reports/group-reports.service.ts';
import type { FirstPages } from '../lib/first-page.ts';
import { inboundSearchBody, type InboundMessageWire } from '../contract/inbound.ts';
import { answerInboundSearch, findInboundMessage } from './inbound/inbound-console.service.ts';
import type { SubscriptionBridge } from '../lib/unsubscribe-view.ts';

export interface PageSession {
  session: ResolvedSession;
  wire: SessionWire;
}

export interface PageBridge extends SubscriptionBridge {
  /** Public settings pages need. */
  publicUrl: string;
  parentPlatformUrl: string | null;
  /**
   * Today's UTC day 'YYYY-MM-DD' where a page renders a date range: CONSOLE_TODAY when set
   * (docs/configuration.md), else the clock's. Read per request, so a service that runs for days
   * never renders a stale today.
   */
  today(): string;
  /** The signed-in session for a cookie token, or null. */
  resolveSession(token: string | undefined): Promise<PageSession | null>;
  /** Options for re-sending the session cookie when the session was extended. */
  sessionCookieOptions(headers: Headers): CookieOptions;
  /** Home (docs/console.md §4): true when the customer has a sending-verified domain and a transaction. */
  hasVerifiedDomainAndTraffic(customerId: number): Promise<boolean>;
  /** One of the customer's domains, or null (unknown, or another customer's). */
  customerDomain(customerId: number, domainId: number): Promise<DomainWire | null>;
  /** The verification link's state, changing nothing (its GET). */
  inspectVerificationLink(domainId: number, token: string): Promise<VerificationLinkState>;
  /** Confirms the verification link (its POST). */
  confirmVerificationLink(domainId: number, token: string): ReturnType<typeof confirmVerificationLink>;
  /**
   * A group report page's group (docs/console-reports.md §2), or null: malformed, unknown or another customer's (the
   * page is then 404).
   */
  reportGroup(customerId: number, groupUuid: string): Promise<{ group_uuid: string; group_name: string } | null>;
  /** Online Attachments' first page and the branding (the list renders on the server). */
  attachmentsFirstPage(customerId: number): Promise<{
    list: { data: GroupWire[]; pagination: { page: number; limit: number; total: number; pages: number } };
    branding: BrandingWire;
  }>;
  /** Webhook Logs' first page, newest first (the list renders on the server). */
  webhookLogsFirstPage(customerId: number): Promise<{ data: WebhookLogWire[]; meta: PageMeta }>;
  /** The account's webhooks for Settings' list and the Webhook Logs' filter, without secrets (rendered in the page). */
  webhooksWithoutSecrets(customerId: number): Promise<WebhookWire[]>;
  /** The Templates list's first page as the island's first call asks for it (rendered on the server). */
  templatesFirstPage(customerId: number): Promise<TemplatePage>;
  /**
   * One received message (its page) with its webhook requests, or null: malformed, unknown or another
   * customer's (the page is then 404).
   */
  inboundMessage(
    customerId: number,
    id: string,
  ): Promise<{ email: InboundMessageWire; webhookRequests: WebhookLogWire[] } | null>;
  /** The customer's domains, named and linked on the Inbound page while nothing has been received. */
  customerDomains(customerId: number): Promise<DomainWire[]>;
  /**
   * The first pages of the console's lists, rendered on the server: each the answer of the API
   * call its island makes, to the body the island would send, through the same contract schema
   * (src/contract/*), check and service function as the route, so the server's rows are the rows the island would load.
   */
  firstPages: FirstPages;
}

export function createPageBridge(ctx: AppContext): PageBridge {
  return {
    publicUrl: ctx.config.publicUrl,
    parentPlatformUrl: ctx.config.parentPlatformUrl ?? null,
    today: () => ctx.config.consoleToday ?? utcDay(new Date()),
    async resolveSession(token) {
      const session = await resolveSession(ctx, token);
      if (!session) return null;
      return { session, wire: sessionToWire(ctx, session) };
    },
    sessionCookieOptions(headers) {
      return sessionCookieOptions(ctx.config, isSecureRequest(ctx.config, headers));
    },
    hasVerifiedDomainAndTraffic: (customerId) => showsDashboard(ctx, customerId),
    async customerDomain(customerId, domainId) {
      try {
        return domainToWire(ctx, await customerDomain(ctx, customerId, domainId));
      } catch (err) {
        if (err instanceof DomainError && err.code === 'not_found') return null;
        throw err;
      }
    },
    inspectVerificationLink: (domainId, token) => inspectVerificationLink(ctx, domainId, token),
    confirmVerificationLink: (domainId, token) => confirmVerificationLink(ctx, domainId, token),
    isKnownTransaction: (transactionId) => isKnownTransaction(ctx, transactionId),
    changeSubscription: (transactionId, action) => changeSubscription(ctx, transactionId, action),
    reportGroup: (customerId, groupUuid) => reportGroup(ctx, customerId, groupUuid),
    async attachmentsFirstPage(customerId) {
      const [list, branding] = await Promise.all([
        listGroups(ctx, customerId, { page: 1, limit: ATTACHMENT_PAGE_SIZE, name: '' }),
        getBranding(ctx, customerId),
      ]);
      return { list, branding };
    },
    async webhookLogsFirstPage(customerId) {
      const { data, meta } = await searchLogs(ctx, customerId, { page: 1, order_by: 'desc' });
      return { data, meta: { ...meta, total_capped: false } }; // as the island reads the API's answer
    },
    async webhooksWithoutSecrets(customerId) {
      const webhooks = await webhooksForConsole(ctx, customerId);
      return webhooks.map((w) => ({ ...w, secret: null, auth_details: null }));
    },
    templatesFirstPage: (customerId) =>
      searchTemplates(ctx, customerId, {
        name: '',
        type: 'user',
        status: null,
        sort: 'description',
        order: 'desc',
        page: 1,
      }),
    inboundMessage: (customerId, id) => findInboundMessage(ctx, customerId, id),
    customerDomains: (customerId) => listDomainsForConsole(ctx, customerId),
    firstPages: {
      suppressions: (customerId, body) => answerSuppressionSearch(ctx, customerId, check(searchSuppressionsBody, body)),
      dashboard: async (customerId, query) =>
        (await answerDashboard(ctx, customerId, check(dashboardQuery, query))).transactionStats,
      transactions: (customerId, body) => answerTransactionSearch(ctx, customerId, check(transactionSearchBody, body)),
      groups: (customerId, body) => answerGroupSearch(ctx, customerId, check(groupSearchBody, body)),
      groupReport: (customerId, body) => answerGroupReport(ctx, customerId, check(reportBody, body)),
      links: (customerId, body) => answerLinks(ctx, customerId, check(reportBody, body)),
      inbound: (customerId, body) => answerInboundSearch(ctx, customerId, check(inboundSearchBody, body)),
    },
  };
}
