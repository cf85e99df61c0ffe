import type { EventFilter } from './events-filters';

/** The API's cap on one bulk call (ids per call, or filter matches per call). */
export const BULK_CAP = 1000;

/** The events to act on; `destination_id` (bulk retry only) acts on that destination's deliveries of them. */
export type BulkSelection = ({ ids: string[] } | { filter: EventFilter; all?: true }) & { destination_id?: string };
export interface BulkAnswer {
  affected: number;
  ids: string[];
  truncated: boolean;
}
export interface BulkTotal {
  affected: number;
  ids: string[];
  /** How many API calls it took. */
  calls: number;
}

/**
 * Runs a bulk action to the end. Ids go in chunks of the cap. A filter is sent again while the API answers
 * `truncated` (it acts on the oldest matches per call); it stops when a call brings no event it had not already
 * touched, so an event that matches again (retried and delivered in between) cannot keep it looping.
 */
export async function runBulk(
  call: (selection: BulkSelection) => Promise<BulkAnswer>,
  selection: BulkSelection,
  onProgress: (affected: number) => void = () => {},
): Promise<BulkTotal> {
  const seen = new Set<string>();
  let calls = 0;
  const add = (answer: BulkAnswer) => {
    calls += 1;
    const before = seen.size;
    for (const id of answer.ids) seen.add(id);
    onProgress(seen.size);
    return seen.size - before;
  };
  if ('ids' in selection) {
    const unique = [...new Set(selection.ids)];
    for (let at = 0; at < unique.length; at += BULK_CAP)
      add(await call({ ...selection, ids: unique.slice(at, at + BULK_CAP) }));
  } else {
    for (;;) {
      const answer = await call(selection);
      const fresh = add(answer);
      if (!answer.truncated || fresh === 0) break;
    }
  }
  return { affected: seen.size, ids: [...seen], calls };
}
