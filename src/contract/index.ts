// Every /v1 operation of the contract, in the order the reference shows them.
import { accountOperations } from './account.ts';
import type { Operation } from './common.ts';
import { reportOperations } from './reports.ts';
import { sendingOperations } from './sending.ts';
import { templateOperations } from './templates.ts';
import { webhookOperations } from './webhooks.ts';
import { referenceOperations } from './reference.ts';
import { resendOperations } from './resend.ts';
import { resendDomainOperations } from './resend-domains.ts';
import { resendTemplateOperations } from './resend-templates.ts';
import { resendAttachmentOperations } from './resend-attachments.ts';
import { apiKeyOperations } from './api-keys.ts';
import { resendWebhookOperations } from './resend-webhooks.ts';
import { receivingOperations } from './resend-receiving.ts';
import { resendSuppressionOperations } from './resend-suppressions.ts';
import { inboundOperations } from './inbound.ts';

export const operations: readonly Operation[] = [
  ...sendingOperations,
  ...resendOperations,
  ...resendDomainOperations,
  ...resendTemplateOperations,
  ...receivingOperations,
  ...resendAttachmentOperations,
  ...apiKeyOperations,
  ...resendSuppressionOperations,
  ...templateOperations,
  ...reportOperations,
  ...webhookOperations,
  ...inboundOperations,
  ...accountOperations,
  ...referenceOperations,
  ...resendWebhookOperations,
];
