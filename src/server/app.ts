// The HTTP API: every /v1/* route, the Resend-compatible /resend/*, /t/* (tracking) and the
// operations endpoints, in one Hono app. Errors are answered by one handler (http/middleware.ts)
// through the one mapping of http/errors.ts.
import { Hono } from 'hono';
import { compress } from 'hono/compress';
import { authRoutes } from './auth/auth.routes.ts';
import type { AppContext } from './core/context.ts';
import { opsRoutes } from './ops/ops.routes.ts';
import { mailRoutes } from './sending/mail.routes.ts';
import { resendRoutes } from './resend/resend.routes.ts';
import { resendDomainRoutes } from './resend/domains.routes.ts';
import { resendWebhookRoutes } from './resend/webhooks.routes.ts';
import { resendTemplateRoutes } from './resend/templates.routes.ts';
import { resendSuppressionRoutes } from './suppressions/resend-suppressions.routes.ts';
import { emailAttachmentRoutes } from './resend/email-attachments.routes.ts';
import { resendErrors } from './http/resend-errors.ts';
import { receivedFileRoutes, receivingRoutes } from './inbound/inbound.routes.ts';
import { inboundConsoleRoutes } from './inbound/inbound-console.routes.ts';
import { settingsRoutes } from './settings/settings.routes.ts';
import { domainRoutes } from './domains/domains.routes.ts';
import { verificationRoutes } from './verification/verification.routes.ts';
import { dashboardRoutes } from './dashboard/dashboard.routes.ts';
import { reportRoutes } from './reports/reports.routes.ts';
import { groupReportRoutes } from './reports/group-reports.routes.ts';
import { exportRoutes } from './exports/exports.routes.ts';
import { webhookRoutes } from './webhooks/webhooks.routes.ts';
import { trackingRoutes } from './tracking/tracking.routes.ts';
import { unsubscribeRoutes } from './unsubscribe/unsubscribe.routes.ts';
import { suppressionRoutes } from './suppressions/suppressions.routes.ts';
import { attachmentRoutes } from './attachments/attachments.routes.ts';
import { publicAttachmentRoutes } from './attachments/public.routes.ts';
import { templateRoutes } from './templates/templates.routes.ts';
import { apiKeyRoutes } from './api-keys/api-keys.routes.ts';
import { openApiText } from '../contract/document.ts';
import { getOpenApi } from '../contract/reference.ts';
import { contractRoutes } from './http/contract-route.ts';
import { type ApiEnv, apiErrorHandler, limitBody } from './http/middleware.ts';
import { sessionMiddleware } from './auth/session-middleware.ts';
import { apiMethodsFinder, apiNotFound, refuseControlCharacters } from './http/request-guard.ts';

const SEND_PATHS = /^\/(v1\/(mail|emails)|resend\/emails)(\/batch)?$/;
// online attachment uploads stream to storage, bounded per file by ATTACHMENT_MAX_FILE_BYTES
const UPLOAD_PATHS = /^\/v1\/tracked-attachments\/groups(\/\d+\/assets)?$/;

export function createApi(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.use('*', async (c, next) => {
    c.set('ctx', ctx);
    await next();
  });
  // the Resend-compatible surface: Resend's shapes, its refusals too (the request guard's among them)
  app.use('/resend/*', resendErrors());
  app.use('*', refuseControlCharacters);
  app.route('/', opsRoutes(ctx));
  app.route('/', trackingRoutes(ctx));

  // Send answers are a few hundred bytes for server-side clients; compress only console answers
  // (the compress middleware turns Hono's lightweight response into a full web Response: measured
  // on a rejected POST /v1/mail, … → … req/s without it).
  const compressConsole = compress({ threshold: 1024 });
  app.use('/v1/*', (c, next) => (SEND_PATHS.test(c.req.path) ? next() : compressConsole(c, next)));
  // the send endpoints take attachments; every other call is a console call with a small body
  const sendLimit = limitBody(ctx.config.sendBodyLimitBytes);
  const consoleLimit = limitBody(ctx.config.consoleBodyLimitBytes);
  app.use('/v1/*', (c, next) =>
    SEND_PATHS.test(c.req.path) ? sendLimit(c, next) : UPLOAD_PATHS.test(c.req.path) ? next() : consoleLimit(c, next),
  );
  app.use('/resend/*', (c, next) => (SEND_PATHS.test(c.req.path) ? sendLimit(c, next) : consoleLimit(c, next)));
  app.route('/', mailRoutes(ctx));
  app.route('/resend', receivingRoutes(ctx)); // before /resend/emails/{id}, which would take 'receiving' as an id
  app.route('/resend', resendRoutes(ctx));
  app.route('/resend', resendDomainRoutes(ctx));
  app.route('/resend', resendWebhookRoutes(ctx));
  app.route('/resend', resendTemplateRoutes(ctx));
  app.route('/resend', resendSuppressionRoutes(ctx));
  app.route('/', emailAttachmentRoutes(ctx)); // /resend (API key) and the signed /v1 download
  app.route('/', unsubscribeRoutes(ctx)); // public: recipients have no session
  app.route('/', publicAttachmentRoutes(ctx)); // public: /a/* download pages
  app.route('/', receivedFileRoutes(ctx)); // public: signed links to received mail's files
  // public: the reference page reads it signed out; made now, from the contract the routes use
  const document = openApiText(ctx.config.publicUrl);
  contractRoutes(app, '')(getOpenApi, [], (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.body(document, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });
  app.use('/v1/*', sessionMiddleware(ctx));
  const consoleRoutes = [
    authRoutes,
    settingsRoutes,
    domainRoutes,
    verificationRoutes,
    dashboardRoutes,
    reportRoutes,
    groupReportRoutes,
    exportRoutes,
    webhookRoutes,
    suppressionRoutes,
    inboundConsoleRoutes,
  ];
  for (const routes of consoleRoutes) app.route('/v1', routes(ctx));
  app.route('/v1', attachmentRoutes(ctx)); // with a session or an API key
  app.route('/v1', templateRoutes(ctx));
  app.route('/', apiKeyRoutes(ctx)); // /resend/api-keys (API key) and /v1/api-keys (session)

  // a path some route serves with other methods is a 405 naming them, otherwise a 404
  app.notFound(apiNotFound(apiMethodsFinder(app)));
  app.onError(apiErrorHandler(ctx));

  return app;
}
