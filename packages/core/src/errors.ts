// Every error a client can see has a stable code defined here. The HTTP layer maps codes to
// statuses in exactly one place (apps/api problem middleware); nothing else picks statuses.
export const ERROR_CODES = {
  validation_failed: 'The request is not valid.',
  invalid_json: 'The request body is not valid JSON.',
  unsupported_media_type: 'Only JSON bodies are accepted.',
  unsupported_content_encoding: 'Compressed request bodies are not accepted.',
  payload_too_large: 'The request body is larger than the configured limit.',
  invalid_encoding: 'The request body is not valid UTF-8.',
  payload_too_deep: 'The JSON payload is nested deeper than the configured limit.',
  too_many_headers: 'The request has more header fields than the server accepts.',
  target_override_disabled: 'X-Target-Url is not accepted on public ingest.',
  target_url_rejected: 'The target URL is not allowed.',
  invalid_source: 'The webhook source is not valid.',
  unauthenticated: 'Valid credentials are required.',
  forbidden: 'The credentials do not allow this.',
  csrf_rejected: "Cross-site request refused: send the request from the relay's own origin, or use a token.",
  too_many_attempts: 'Too many failed logins; try again later.',
  rate_limited: 'Too many requests; slow down and retry after the time Retry-After gives.',
  quota_exceeded:
    "The organization's monthly event quota is used up; webhooks are accepted again from the next period.",
  idp_not_configured: 'Identity-provider login is not configured for this organization.',
  idp_login_failed: 'The identity-provider login did not succeed; no session was started.',
  not_found: 'No such resource.',
  username_taken: 'That username is already in use.',
  last_admin: 'An organization must keep at least one admin.',
  role_managed_by_idp:
    "This user's role follows the identity provider's claim mapping; change it at the identity provider.",
  identity_taken: 'That identity-provider account is linked to another user already.',
  wrong_password: 'The current password is wrong.',
  reset_code_invalid: 'The set-password code is unknown, used already or expired; ask an admin for a new one.',
  own_account: 'Admins cannot disable or delete their own account; another admin can.',
  last_operator: 'The platform must keep at least one operator.',
  event_not_retryable: 'Only a failed or delivered event can be retried; this one is still queued.',
  event_not_failed: 'Only a failed event, or the retrying head of an ordered key, can be acknowledged.',
  event_paused:
    'The event is paused because its rule is unhealthy: resume the rule (POST /rules/{id}/resume) to queue it again.',
  delivery_not_found: 'The event has no delivery to that destination (a destination of its rule that took it).',
  delivery_not_failed: 'Only a failed delivery can be acknowledged.',
  transformed_body_not_found:
    'No transformed body is stored for this delivery: its transform has not run yet (it runs at the first attempt), ' +
    'failed, or there is none.',
  delivery_paused:
    'The delivery is paused because its destination is unhealthy: resume the destination ' +
    '(POST /rules/{id}/destinations/{destinationId}/resume) to queue it again.',
  bulk_all_required: 'An empty filter selects every event: send "all": true beside it to mean that.',
  active_provider_exists: 'Another active rule already serves this source; deactivate it first.',
  provider_inactive: 'That rule is not active.',
  rule_name_taken: 'Another rule of this organization has that name; choose another or leave it out for a default.',
  hook_name_taken: 'Another hook of this rule has that name; choose another or leave it out for a default.',
  destination_name_taken:
    'Another destination of this rule has that name; choose another or leave it out for a default.',
  destination_limit_reached: 'A rule has at most 20 destinations; delete one before adding another.',
  no_default_target: 'No target_url was given and no default target is configured.',
  operator_exists: 'A platform operator exists already; bootstrap works only once.',
  slug_taken: 'That organization slug is already in use.',
  organization_suspended: "This organization's subscription is suspended or canceled; webhooks are not accepted.",
  domain_taken: 'That domain is already registered.',
  domain_verification_failed: 'The DNS records of the domain are missing or wrong; it stays pending.',
  domains_not_configured: 'Custom domains need INGEST_CANONICAL_HOST to be set on this install.',
  secrets_not_configured: 'Storing a signing secret needs SECRET_ENCRYPTION_KEYS to be set on this install.',
  ingest_host_unknown: 'No organization receives webhooks at this host.',
  organization_has_domains: 'The organization still has active custom domains; delete them first.',
  organization_is_default: "The install's default organization cannot be deleted.",
  method_not_allowed: 'Method not allowed.',
  database_unavailable: 'The event store is unavailable; the webhook was not accepted.',
  ingest_overloaded:
    'This relay process is storing as many webhooks as it may at once (INGEST_MAX_IN_FLIGHT); nothing was stored, ' +
    'retry shortly.',
  service_unavailable: 'The service is shutting down, not ready, or cannot reach a store it needs; try again shortly.',
  stream_unavailable: 'The live feed is unavailable (Redis cannot be reached); try again shortly.',
  dashboard_not_built: 'The dashboard is not built on this install: run `pnpm build`, then restart the api.',
  idempotency_key_reused: 'This Idempotency-Key was used with a different request; use a new key.',
  idempotency_in_progress: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  signature_invalid: "The webhook's signature did not verify; nothing was stored.",
  verification_secret_required: 'Signature verification needs a verification_secret on the rule.',
  internal_error: 'Internal server error.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CODES[code],
    readonly details?: Record<string, unknown>,
    /** Response headers the refusal's answer carries besides Retry-After (a rate limit's RateLimit pair). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}
