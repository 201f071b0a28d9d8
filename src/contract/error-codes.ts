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
