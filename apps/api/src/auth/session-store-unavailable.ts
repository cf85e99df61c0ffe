import { AppError } from '@relay/core';

/**
 * Sessions, login limits and Idempotency-Keys live in Redis. When a command to it fails (Redis down, or
 * no answer within REDIS_COMMAND_TIMEOUT_MS), the request answers 503: sign-in fails closed (a password is
 * never checked without its limit) and a session is neither read nor written, rather than a 500 or a wait.
 */
export const sessionStoreUnavailable = (err: unknown): AppError =>
  err instanceof AppError
    ? err
    : new AppError(
        'service_unavailable',
        'Sign-in and sessions are unavailable right now (Redis cannot be reached); try again shortly.',
      );
