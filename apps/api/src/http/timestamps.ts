/** An optional timestamp as the API shows it: ISO 8601 UTC, or null. */
export const isoOrNull = (d: Date | null | undefined) => d?.toISOString() ?? null;
