import { AppError } from '@relay/core';
import { z } from 'zod';

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 200;

const schema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});

/** `page` from 1, `per_page` from 1 to 200 (default 50); out of range is a 400, never a silent clamp. */
export function parsePagination(query: unknown): { page: number; perPage: number } {
  const result = schema.safeParse(query);
  if (!result.success) {
    throw new AppError('validation_failed', `page must be ≥ 1 and per_page from 1 to ${MAX_PER_PAGE}.`, {
      errors: result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
    });
  }
  return { page: result.data.page, perPage: result.data.per_page };
}
