// The answers' shapes the console's browser code reads, named once, from the contract's schemas
// (src/contract/*): type-only, so no schema code and no server module reaches the browser.
import type { AnswerOf } from '../contract/client.ts';

/** A list's sort direction, as the search calls take it. */
export type Direction = 'asc' | 'desc';
/** A searchable, sortable list's query (transactions, groups, a group report's table). */
export interface SearchQuery<SortKey extends string> {
  page: number;
  /** The search text in effect (the box's text once the typing has paused). */
  text: string;
  sort: { key: SortKey; direction: Direction };
}
export type TransactionPage = AnswerOf<'POST /v1/transaction/search'>;
export type TransactionWire = TransactionPage['data'][number];
export type TransactionEventWire = AnswerOf<'GET /v1/transactions/{uuid}/events'>['data'][number];
export type TransactionReplyWire = AnswerOf<'GET /v1/transactions/{uuid}/events'>['replies'][number];
export type DailyStatWire = AnswerOf<'POST /v1/dashboard/overview'>['dailyStats'][number];
export type GroupPage = AnswerOf<'POST /v1/transaction-groups/search'>;
export type GroupWire = GroupPage['data'][number];
export type WebhookLogWire = AnswerOf<'POST /v1/webhook-logs'>['data'][number];
export type LogProgress = WebhookLogWire['progress'];
export type WebhookLogDetail = AnswerOf<'GET /v1/webhook-logs/{id}'>;
export type TemplateWire = AnswerOf<'GET /v1/templates/{id}'>['template'];
export type SessionWire = AnswerOf<'GET /v1/verify_auth'>;
export type ApiCredentials = AnswerOf<'GET /v1/ui-settings'>['credentials']['apiCredentials'];
export type SmtpCredentials = AnswerOf<'GET /v1/ui-settings'>['credentials']['smtpCredentials'];
