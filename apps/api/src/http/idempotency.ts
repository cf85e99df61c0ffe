import { createHash, createHmac } from 'node:crypto';
import { AppError, type ErrorCode } from '@relay/core';
import type { Request, Response } from 'express';
import { canonicalJson } from './canonical-json';
import type { IdempotencyStore, StoredOutcome } from './idempotency-store';
import { operationKey, type Operation, type Reply } from './operation';
import { problemStatus } from './problem';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set on every answer that is a replay of the first attempt's. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
// Printable ASCII; Node has already trimmed the value, so a blank key arrives empty and is refused.
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

type IdempotentOperation = Pick<Operation, 'method' | 'path' | 'idempotent'>;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function keyOf(req: Request): string | undefined {
  const key = req.get(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return undefined;
  if (!VALID_KEY.test(key)) {
    throw new AppError('validation_failed', 'The request is not valid.', {
      errors: [{ field: IDEMPOTENCY_KEY_HEADER, message: '1 to 255 printable ASCII characters' }],
    });
  }
  return key;
}

// Keys belong to the calling credential: an API key or personal token, else the signed-in user
// (session or Basic), the operator, or, on the public bootstrap, the platform token it carries.
function scopeOf(req: Request): string | undefined {
  const principal = req.principal;
  if (principal?.credentialId) return `credential:${principal.credentialId}`;
  if (principal?.userId) return `user:${principal.userId}`;
  if (req.operator) return `operator:${req.operator.id}`;
  const authorization = req.get('authorization');
  return authorization ? `authorization:${sha256(authorization)}` : undefined;
}

// A replay never carries a secret shown once: the first answer is stored without it, and says so.
function withoutSecret(op: IdempotentOperation, body: unknown): unknown {
  const secret = typeof op.idempotent === 'object' ? op.idempotent.secretField : undefined;
  if (!secret || typeof body !== 'object' || body === null) return body;
  const { [secret]: _secret, ...rest } = body as Record<string, unknown>;
  return { ...rest, secret_redacted: true };
}

/**
 * Whether an answer is kept for replays. The relay's own failures (5xx) and a rate limit's 429 are
 * passing states, so the key stays free for a retry. On the public bootstrap nobody has verified the
 * credential that scopes the key yet, so only its success is kept: guessed tokens cannot fill Redis.
 */
function kept(status: number, verified: boolean): boolean {
  if (status >= 500 || status === 429) return false;
  return verified || status < 300;
}

function replay(outcome: StoredOutcome): Reply {
  if ('problem' in outcome) {
    const { code, message, details } = outcome.problem;
    throw new AppError(code as ErrorCode, message, details);
  }
  return outcome.body === undefined ? { status: outcome.status } : { status: outcome.status, body: outcome.body };
}

/**
 * Runs an operation's handler under its `Idempotency-Key`: the first attempt acts and its answer
 * (2xx-4xx, see `kept`) is kept; the same key and request replay that answer without acting again,
 * the same key with another request is refused (422), and a duplicate while the first still runs gets
 * 409. A failure of the relay (5xx) frees the key so that the client can retry it. Operations not
 * declared `idempotent`, and requests without the header, just run.
 */
export async function runIdempotently(
  store: IdempotencyStore | undefined,
  op: IdempotentOperation,
  req: Request,
  res: Response,
  /** The validated query and body: what "the same request" compares (path params are part of the key). */
  input: unknown,
  act: () => Promise<Reply | undefined>,
): Promise<Reply | undefined> {
  const key = op.idempotent ? keyOf(req) : undefined;
  const scope = key === undefined ? undefined : scopeOf(req);
  if (!store || key === undefined || scope === undefined) return act();
  const slot = sha256(JSON.stringify([scope, operationKey(op), req.params, key]));
  // Keyed by the client's key, so what Redis holds cannot be matched against guessed bodies (which may
  // carry a new user's password) without it.
  // Canonical JSON: the same body with its keys in another order is the same request.
  const fingerprint = createHmac('sha256', `${scope}\u0000${key}`)
    .update(canonicalJson(input) ?? '')
    .digest('hex');
  // Without the store the key's promise cannot be kept: refuse rather than risk acting twice.
  const claim = await store.claim(slot, fingerprint).catch(() => {
    throw new AppError('service_unavailable', 'Idempotency keys cannot be checked right now; try again shortly.');
  });
  if (claim.kind !== 'claimed') {
    if (claim.fingerprint !== fingerprint) throw new AppError('idempotency_key_reused');
    if (claim.kind === 'running') throw new AppError('idempotency_in_progress');
    res.set(REPLAYED_HEADER, 'true');
    return replay(claim.outcome);
  }
  const verified = Boolean(req.principal ?? req.operator);
  let reply: Reply | undefined;
  try {
    reply = await act();
  } catch (err) {
    const status = err instanceof AppError ? problemStatus(err.code) : 500;
    if (err instanceof AppError && kept(status, verified)) {
      const problem = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
      await store.complete(slot, fingerprint, claim.token, { status, problem });
    } else {
      await store.release(slot, fingerprint, claim.token);
    }
    throw err;
  }
  if (!reply || !kept(reply.status, verified)) {
    await store.release(slot, fingerprint, claim.token);
    return reply;
  }
  const body = reply.body === undefined ? {} : { body: withoutSecret(op, reply.body) };
  await store.complete(slot, fingerprint, claim.token, { status: reply.status, ...body });
  return reply;
}
