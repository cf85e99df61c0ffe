import type { FilterSubject } from './filter-types';

/** A stored webhook as a filter reads it: the raw body and what was received with it. */
export interface StoredRequest {
  body: Uint8Array;
  headers: Record<string, string | string[]>;
  path: string;
  query: Record<string, string | string[]>;
}

const decoder = new TextDecoder();

/**
 * What a filter sees of a stored webhook: the body parsed when it is JSON (else its text), the rest as received.
 * The worker's prepare stage and the API's dry run both build it here, so a dry run answers what delivery would
 * decide (the dry run hands in headers already masked, as its caller reads them).
 */
export function filterSubjectOf(request: StoredRequest): FilterSubject {
  const text = decoder.decode(request.body);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { body, headers: request.headers, path: request.path, query: request.query };
}
