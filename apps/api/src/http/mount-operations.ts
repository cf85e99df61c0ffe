import { AppError, type Principal } from '@relay/core';
import type { OperatorRecord } from '@relay/db';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { guard, operatorOnly } from '../auth/guard';
import type { IdempotencyStore } from './idempotency-store';
import { runIdempotently } from './idempotency';
import type { AnyOperation, Reply } from './operation';
import { nulFields, validate } from './validate';

export interface MountOptions {
  /** Check every JSON answer against its declared schema (tests): a mismatch fails the request. */
  validateResponses: boolean;
  /** Where `idempotent` operations keep their answers; without it, Idempotency-Key is ignored. */
  idempotency?: IdempotencyStore;
}

function guardOf(op: AnyOperation<unknown>): RequestHandler[] {
  if (op.access === 'public') return [];
  if (op.access === 'operator') return [operatorOnly];
  const check = guard(op.access);
  const handlers: RequestHandler[] = [
    op.allowOperator ? (req, res, next) => (req.operator ? next() : check(req, res, next)) : check,
  ];
  const bearer = op.bearerOnly;
  if (bearer) {
    handlers.push((req, _res, next) =>
      next(req.principal && req.principal.mechanism !== 'token' ? new AppError('unauthenticated', bearer) : undefined),
    );
  }
  const refusal = op.refuseApiKeys;
  if (refusal) {
    handlers.push((req, _res, next) =>
      next(req.principal?.kind === 'api_key' ? new AppError('forbidden', refusal) : undefined),
    );
  }
  return handlers;
}

function checkReply(op: AnyOperation<unknown>, reply: Reply): void {
  const spec = op.responses[reply.status];
  if (!spec)
    throw new Error(`${op.method.toUpperCase()} ${op.path} answered ${reply.status}, which it does not declare`);
  if (!spec.schema) {
    if (reply.body !== undefined) throw new Error(`${op.method.toUpperCase()} ${op.path} ${reply.status} has no body`);
    return;
  }
  const result = spec.schema.safeParse(reply.body);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`${op.method.toUpperCase()} ${op.path} ${reply.status} does not match its schema: ${issues}`);
  }
}

/** The last handler of an operation's route: params, query and body checked, the handler run, its Reply sent. */
function replyHandler<Services>(op: AnyOperation<Services>, services: Services, options: MountOptions) {
  return async (req: Request, res: Response): Promise<void> => {
    if (op.params && (!op.params.safeParse(req.params).success || nulFields(op.params, req.params).length > 0)) {
      throw new AppError('not_found', op.notFound ?? 'No such resource.');
    }
    const ctx = {
      req,
      res,
      services,
      params: op.params ? op.params.parse(req.params) : undefined,
      query: op.query ? validate(op.query, req.query) : undefined,
      body: op.body ? validate(op.body, req.body) : undefined,
      get principal(): Principal {
        if (!req.principal) throw new AppError('unauthenticated');
        return req.principal;
      },
      get operator(): OperatorRecord {
        if (!req.operator) throw new AppError('unauthenticated');
        return req.operator;
      },
    };
    const input = [ctx.query, ctx.body];
    const reply = await runIdempotently(options.idempotency, op, req, res, input, async () => op.handler(ctx));
    if (!reply) return;
    if (options.validateResponses) checkReply(op, reply);
    if (reply.body === undefined) res.status(reply.status).end();
    else res.status(reply.status).json(reply.body);
  };
}

/**
 * Registers operations on a router: the guard from the access rule, then params (a value that
 * cannot name a resource is a 404), query and body validated by the declared schemas, then the
 * handler (run under its Idempotency-Key where the operation is `idempotent`), whose Reply is sent
 * as JSON.
 */
export function mountOperations<Services>(
  operations: readonly AnyOperation<Services>[],
  services: Services,
  options: MountOptions,
): Router {
  const router = Router();
  for (const op of operations) {
    router[op.method](
      op.path,
      ...(op.middleware ?? []),
      ...guardOf(op as AnyOperation<unknown>),
      replyHandler(op, services, options),
    );
  }
  return router;
}

/**
 * One public operation without params or middleware as a plain handler, for a caller that has already
 * decided the request is this operation's (the ingest catch-all): a router of its own would match the
 * path again and build params nobody reads, which was a sixth of what a webhook allocated (bench).
 */
export function operationHandler<Services>(
  op: AnyOperation<Services>,
  services: Services,
  options: MountOptions,
): RequestHandler {
  if (op.access !== 'public' || op.params || op.middleware?.length) {
    throw new Error(`${op.method.toUpperCase()} ${op.path} needs its router (guard, params or middleware)`);
  }
  const reply = replyHandler(op, services, options);
  const method = op.method.toUpperCase();
  return (req, res, next) => {
    if (req.method !== method) return next();
    reply(req, res).catch(next);
  };
}
