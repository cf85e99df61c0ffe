import { AppError, ERROR_CODES, type ErrorCode } from '@relay/core';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

// The one place error codes become HTTP statuses.
const STATUS: Record<ErrorCode, number> = {
  validation_failed: 400,
  invalid_json: 400,
  unsupported_media_type: 415,
  unsupported_content_encoding: 415,
  payload_too_large: 413,
  invalid_encoding: 400,
  payload_too_deep: 400,
  too_many_headers: 431,
  target_override_disabled: 400,
  target_url_rejected: 422,
  invalid_source: 400,
  unauthenticated: 401,
  forbidden: 403,
  csrf_rejected: 403,
  too_many_attempts: 429,
  rate_limited: 429,
  quota_exceeded: 429,
  idp_not_configured: 404,
  idp_login_failed: 401,
  not_found: 404,
  username_taken: 409,
  operator_exists: 409,
  slug_taken: 409,
  rule_name_taken: 409,
  hook_name_taken: 409,
  destination_name_taken: 409,
  destination_limit_reached: 409,
  organization_suspended: 403,
  domain_taken: 409,
  domain_verification_failed: 422,
  ingest_host_unknown: 404,
  organization_has_domains: 409,
  organization_is_default: 409,
  domains_not_configured: 422,
  secrets_not_configured: 422,
  last_admin: 409,
  role_managed_by_idp: 409,
  identity_taken: 409,
  wrong_password: 403,
  reset_code_invalid: 400,
  own_account: 409,
  last_operator: 409,
  event_not_retryable: 409,
  event_not_failed: 409,
  event_paused: 409,
  delivery_not_found: 404,
  delivery_not_failed: 409,
  transformed_body_not_found: 404,
  delivery_paused: 409,
  bulk_all_required: 400,
  active_provider_exists: 409,
  provider_inactive: 422,
  no_default_target: 422,
  method_not_allowed: 405,
  database_unavailable: 503,
  ingest_overloaded: 503,
  service_unavailable: 503,
  stream_unavailable: 503,
  dashboard_not_built: 503,
  idempotency_key_reused: 422,
  idempotency_in_progress: 409,
  signature_invalid: 401,
  verification_secret_required: 422,
  internal_error: 500,
};

const BODY_PARSER_ERRORS: Record<string, ErrorCode> = {
  'charset.unsupported': 'unsupported_media_type',
  'encoding.unsupported': 'unsupported_content_encoding',
  'request.aborted': 'validation_failed',
  'request.size.invalid': 'validation_failed',
};

// A Postgres or Redis restart, failover or missing partition (docs/operations.md) usually passes within seconds.
const OUTAGE_RETRY_AFTER_SECONDS = 5;
const OUTAGES: ReadonlySet<ErrorCode> = new Set(['database_unavailable', 'service_unavailable']);

/** The HTTP status of an error code. */
export const problemStatus = (code: ErrorCode): number => STATUS[code];

export function sendProblem(res: Response, error: AppError): void {
  const status = STATUS[error.code];
  // Ingest's metrics count refusals by this code (modules/metrics/metrics-http.ts).
  res.locals.problemCode = error.code;
  // A refusal that knows when to come back says so in the header too (429s: login limits, rate limits, quotas), and
  // an outage of the relay's own stores asks for a retry soon: providers that honour Retry-After come back then.
  const retryAfter =
    error.details?.retry_after_seconds ?? (OUTAGES.has(error.code) ? OUTAGE_RETRY_AFTER_SECONDS : undefined);
  if (typeof retryAfter === 'number' && !res.headersSent) res.setHeader('Retry-After', String(retryAfter));
  if (error.headers && !res.headersSent) res.set(error.headers);
  res
    .status(status)
    .type('application/problem+json')
    .json({
      type: `urn:webhook-relay:problem:${error.code}`,
      title: ERROR_CODES[error.code],
      status,
      detail: error.message,
      code: error.code,
      request_id: res.req.id,
      ...error.details,
    });
}

export const notFound: RequestHandler = (req, res) => {
  sendProblem(res, new AppError('not_found', `No route for ${req.method} ${req.path}.`));
};

/** Known errors become their problem; anything else is logged in full and answered opaquely. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return void res.end();
    if (err instanceof AppError) {
      if (STATUS[err.code] >= 500) logger.warn({ requestId: req.id, code: err.code, err }, err.message);
      else logger.debug({ requestId: req.id, code: err.code }, err.message);
      return sendProblem(res, err);
    }
    const status = (err as { status?: number; type?: string }).status;
    if ((err as { type?: string }).type === 'entity.parse.failed')
      return sendProblem(res, new AppError('invalid_json'));
    if (status === 413) return sendProblem(res, new AppError('payload_too_large'));
    // The body parser's other refusals (charset, content encoding, a malformed or aborted body) are
    // the client's: a 4xx with a code, never a 500.
    const parserError = BODY_PARSER_ERRORS[(err as { type?: string }).type ?? ''];
    if (parserError) return sendProblem(res, new AppError(parserError, (err as Error).message));
    // The router could not percent-decode a path segment: no resource has that name.
    if (err instanceof URIError)
      return sendProblem(res, new AppError('not_found', 'The path is not valid percent-encoding.'));
    logger.error({ err, requestId: req.id }, 'unhandled error');
    sendProblem(res, new AppError('internal_error', `Internal server error (request id ${String(req.id)}).`));
  };
}
