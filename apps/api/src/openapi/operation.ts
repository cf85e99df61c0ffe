import type { z } from 'zod';
import type { GuardedRoute } from '../legacy-access-table';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** JSON body; omitted for 204 and non-JSON answers. */
  schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  contentType?: string;
}

// One API operation as the OpenAPI document describes it. Route handlers validate with the very
// zod schemas named here (params, query, body), so the document cannot drift from what is enforced.
// `path` is Express syntax (`/events/:id`); problem responses (400/401/403/404) are added from the
// access table and the presence of inputs.
export interface Operation {
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** The authorization-table row, or 'public'. */
  /** A row of the authorization table, 'public', or 'operator' (platform operators' sessions only). */
  access: GuardedRoute | 'public' | 'operator';
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A request body that is not validated by zod (ingest takes any JSON). */
  rawBody?: { contentType: string; description: string };
  responses: Record<number, ResponseSpec>;
}

/** Declares a module's operations; keeps literal types for the route files that use them. */
export function operations<const T extends readonly Operation[]>(ops: T): T {
  return ops;
}
