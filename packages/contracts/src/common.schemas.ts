import { RESOURCE_NAME } from '@relay/core';
import { z } from 'zod';

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 200;
/** The largest value of a Postgres `integer` column: integer inputs bound for one stay within it. */
export const INT4_MAX = 2_147_483_647;
/** The last page a list may ask for: its offset stays within a Postgres integer at any page size. */
export const MAX_PAGE = 10_000_000;

// Shapes shared by several operations' documentation and validation.
export const uuidParam = z.object({ id: z.uuid() });

export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(MAX_PAGE).default(1).describe(`Page number, from 1 to ${MAX_PAGE}.`),
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

const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);
/**
 * An ISO 8601 date-time input with a zone (`Z` or an offset), from 1970-01-01 to 9999-12-31 UTC:
 * years outside that range (year 0, or past 9999 after the offset) cannot be stored or computed with.
 */
export const dateTimeInput = () =>
  z.iso.datetime({ offset: true }).refine(
    (value) => {
      const at = Date.parse(value);
      return at >= EARLIEST && at <= LATEST;
    },
    // Only a well-formed date-time is checked for its range: one problem per field.
    { message: 'must lie between 1970-01-01 and 9999-12-31 (UTC)', when: (payload) => payload.issues.length === 0 },
  );

/** A rule's or hook's name (unique in its organization, or in its rule): a stable handle for titles and config. */
export const resourceNameSchema = z
  .string()
  .regex(RESOURCE_NAME, '1-100 letters, digits, ".", "_" or "-", starting with a letter or digit');

/** A webhook source: the first path segment of ingest, and a rule's key. */
export const sourceSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
