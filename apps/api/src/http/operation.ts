import type { AccessRule, Principal } from '@relay/core';
import type { OperatorRecord } from '@relay/db';
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/**
 * Who may call an operation: a row of the authorization table (least role and API-key scope),
 * 'public' (no credentials), or 'operator' (platform operators' sessions only).
 */
export type Access = AccessRule | 'public' | 'operator';

export interface ResponseSpec {
  description: string;
  /** JSON body; omitted for 204 and for problem answers. */
  schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  contentType?: string;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface OperationContext<Services, P, Q, B> {
  req: Request;
  res: Response;
  services: Services;
  params: P;
  query: Q;
  body: B;
  /** The calling principal; throws `unauthenticated` where there is none (public operations). */
  readonly principal: Principal;
  /** The platform operator of an 'operator' operation. */
  readonly operator: OperatorRecord;
}

/** A JSON answer; the mount function sends it (and, in tests, checks it against `responses`). */
export interface Reply {
  status: number;
  body?: unknown;
}

/**
 * One API operation, declared once: path, access rule, input and response schemas, OpenAPI text and
 * the handler. The mount function guards, validates and registers it; the OpenAPI document and the
 * authorization table are derived from these declarations. `path` is Express syntax (`/events/:id`).
 */
export interface Operation<
  Services = unknown,
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  /**
   * A platform operator's session passes the guard too, and the handler answers it (operators have
   * no principal, so the access row alone would refuse them): GET /api/auth/me.
   */
  allowOperator?: boolean;
  /**
   * The 403 detail for API keys, which pass the access row but cannot call this: the operation acts
   * on the calling user's own things (personal tokens). Refused before the request is validated.
   */
  refuseApiKeys?: string;
  /**
   * The 401 detail for a session or Basic credential: the operation takes only `Authorization: Bearer` tokens
   * (API keys, personal tokens) — the MCP endpoint, whose clients hold a key given to them on purpose.
   */
  bearerOnly?: string;
  /**
   * Honours an `Idempotency-Key` header (http/idempotency.ts): creates, sends, retries, bulk actions.
   * `secretField` names a field of the answer shown only once: it is never stored and replays omit it.
   */
  idempotent?: true | { secretField: string };
  /** Handlers run before the guard: a body parser of its own (the bootstrap's small JSON limit). */
  middleware?: RequestHandler[];
  params?: P;
  query?: Q;
  body?: B;
  /** A request body that zod does not parse (ingest reads any JSON itself). */
  rawBody?: { contentType: string; description: string };
  /** What a path parameter that cannot name a resource answers (404), e.g. "No such rule.". */
  notFound?: string;
  responses: Record<number, ResponseSpec>;
  /** Answers a Reply, or undefined when it wrote the response itself (streams, redirects, files). */
  handler(ctx: OperationContext<Services, Out<P>, Out<Q>, Out<B>>): Promise<Reply | undefined> | Reply | undefined;
}

/** An operation with its schema types erased, as lists of operations hold them. */
export type AnyOperation<Services> = Operation<
  Services,
  z.ZodObject | undefined,
  z.ZodObject | undefined,
  z.ZodType | undefined
>;

/** Returns a `define` function that types handlers against the app's services. */
export function operationFactory<Services>() {
  return function define<
    P extends z.ZodObject | undefined = undefined,
    Q extends z.ZodObject | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
  >(op: Operation<Services, P, Q, B>): AnyOperation<Services> {
    return op;
  };
}

/** `GET /events/:id`: the operation's key in the authorization table and in docs. */
export const operationKey = (op: { method: HttpMethod; path: string }) => `${op.method.toUpperCase()} ${op.path}`;
