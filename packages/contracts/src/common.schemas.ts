import { z } from 'zod';

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 200;

// Shapes shared by several operations' documentation and validation.
export const uuidParam = z.object({ id: z.uuid() });

export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).describe('Page number, from 1.'),
  per_page: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PER_PAGE)
    .default(DEFAULT_PER_PAGE)
    .describe(`Page size, default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE} (above is a 400).`),
});

/** A paginated envelope: `{ <key>: [...], total, page, per_page, pages }`. */
export function pageEnvelope<K extends string, T extends z.ZodType>(key: K, item: T) {
  return z.object({
    [key]: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    per_page: z.number().int(),
    pages: z.number().int(),
  } as { [P in K]: z.ZodArray<T> } & {
    total: z.ZodNumber;
    page: z.ZodNumber;
    per_page: z.ZodNumber;
    pages: z.ZodNumber;
  });
}

export const timestamp = z.string().describe('ISO 8601 UTC timestamp.');

/** A webhook source: the first path segment of ingest, and a provider's key. */
export const sourceSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
