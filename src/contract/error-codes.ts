// Every error code the API answers with and its HTTP status, defined once: the server's ApiError
// (src/server/http/errors.ts) answers with these, and the contract documents them (common.ts). No
// schema code here, so a browser file may import it.
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  validation_failed: 400,
  webhook_url_not_allowed: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  forbidden: 403,
  csrf_failed: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  domain_not_verified: 422,
  missing_variables: 422,
  too_many_requests: 429,
  internal: 500,
  unavailable: 503,
  database_unavailable: 503,
  storage_full: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Resend's error `name` for each code, on the Resend-compatible surface (/resend/*, and beside our
 * envelope on /v1/emails): its SDK hands callers `{ statusCode, name, message }`. An unauthorized
 * call without an Authorization header is `missing_api_key` instead.
 */
export const RESEND_ERROR_NAME: Record<ErrorCode, string> = {
  bad_request: 'validation_error',
  invalid_json: 'validation_error',
  validation_failed: 'validation_error',
  webhook_url_not_allowed: 'validation_error',
  unauthorized: 'invalid_api_key',
  invalid_credentials: 'invalid_api_key',
  forbidden: 'restricted_api_key',
  csrf_failed: 'restricted_api_key',
  not_found: 'not_found',
  method_not_allowed: 'method_not_allowed',
  conflict: 'invalid_idempotent_request',
  precondition_failed: 'validation_error',
  payload_too_large: 'validation_error',
  unsupported_media_type: 'validation_error',
  unprocessable: 'validation_error',
  domain_not_verified: 'validation_error',
  missing_variables: 'validation_error',
  too_many_requests: 'rate_limit_exceeded',
  internal: 'internal_server_error',
  unavailable: 'application_error',
  database_unavailable: 'application_error',
  storage_full: 'application_error',
};
