import { AppError } from '@relay/core';
import type { z } from 'zod';

/** Parses a request part with a zod schema; every problem is reported at once, by field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new AppError('validation_failed', 'The request is not valid.', {
    errors: result.error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message })),
  });
}
