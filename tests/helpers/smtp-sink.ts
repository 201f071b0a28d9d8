// The far side of delivery in tests: the harness's SMTP receiver (scripts/lib/service-harness.mjs),
// which records every message with its envelope and answers chosen recipients with a chosen reply.
export { type SmtpSink, type SunkMessage, startSmtpSink } from '../../scripts/lib/service-harness.mjs';
