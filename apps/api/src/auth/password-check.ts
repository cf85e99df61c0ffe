import { createHash, randomBytes } from 'node:crypto';
import type { Principal } from '@relay/core';
import type { AuditRepository, OperatorRecord, OperatorRepository, UserRepository } from '@relay/db';
import type { LoginLimiter } from './login-limiter';
import type { PasswordHasher } from './passwords';
import { verifyLogin } from './verify-login';

export interface PasswordCheckDeps {
  users: UserRepository;
  operators: OperatorRepository;
  passwords: PasswordHasher;
  limiter: LoginLimiter;
  audit: AuditRepository;
}

export type PasswordCheckOutcome =
  { user: Principal } | { operator: OperatorRecord } | { limited: true; retryAfterSeconds: number } | { failed: true };

export interface PasswordCheckRequest {
  username: string;
  password: string;
  ip: string | undefined;
  mechanism: 'session' | 'basic';
}

// Parallel requests with the same username, password and IP (a client sending Basic on several
// requests at once) share one check: every attempt in flight holds a place in the count, so without
// this a client could not have more requests in flight than the limit allows failures. Keyed by a
// digest with a per-process salt, so the map never holds a password.
const salt = randomBytes(16);
const inFlightByDeps = new WeakMap<PasswordCheckDeps, Map<string, Promise<PasswordCheckOutcome>>>();

/**
 * Every password check of the api goes through here — session login and HTTP Basic alike — so one
 * limit covers both: the attempt is counted first (a locked username + IP is refused before any
 * hash is verified, even with the right password), a wrong password is audited as
 * `auth.login_failed` (under the user's organization when the username exists), a right one
 * refunds the attempt. `mechanism` says which door was knocked on.
 */
export function checkPassword(deps: PasswordCheckDeps, request: PasswordCheckRequest): Promise<PasswordCheckOutcome> {
  const key = createHash('sha256')
    .update(salt)
    .update(JSON.stringify([request.username, request.password, request.ip ?? null, request.mechanism]))
    .digest('hex');
  let inFlight = inFlightByDeps.get(deps);
  if (!inFlight) {
    inFlight = new Map<string, Promise<PasswordCheckOutcome>>();
    inFlightByDeps.set(deps, inFlight);
  }
  const running = inFlight.get(key);
  if (running) return running;
  const check = runCheck(deps, request).finally(() => inFlight.delete(key));
  inFlight.set(key, check);
  return check;
}

async function runCheck(deps: PasswordCheckDeps, request: PasswordCheckRequest): Promise<PasswordCheckOutcome> {
  const ip = request.ip ?? 'unknown';
  const limit = await deps.limiter.attempt('password', request.username, ip);
  if (!limit.ok) return { limited: true, retryAfterSeconds: limit.retryAfterSeconds };
  const login = await verifyLogin(request.username, request.password, deps);
  if (login) {
    await deps.limiter.succeeded('password', request.username, ip);
    return login;
  }
  deps.limiter.failed('password');
  const known = await deps.users.findByUsernameForLogin(request.username);
  await deps.audit.record(known?.organizationId ?? null, {
    actorUserId: known?.id ?? null,
    actorEmail: known?.email ?? null,
    action: 'auth.login_failed',
    resourceType: 'user',
    resourceId: known?.id ?? null,
    metadata: { username: request.username, ip: request.ip, mechanism: request.mechanism },
  });
  return { failed: true };
}
