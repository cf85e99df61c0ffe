import type { NewTransform, StoredEvent, StoredTransform } from '@relay/db';
import type { TransformFailure, TransformInput, TransformRunner } from '@relay/transform';

// A delivery's transform (docs/transformations.md), the worker's side: run once per run, at its first attempt, on
// the webhook as received; its output is stored with the event (the primary) or the delivery (a destination) before
// anything is sent, and every automatic retry sends exactly those bytes. A manual retry and a resume clear it, so
// the transform in force then runs again.

/** What a transform is run for: the code, the event, and who it runs for (its context). */
export interface TransformJob {
  code: string;
  event: StoredEvent;
  ruleId: string;
  destinationId?: string;
}

export type Transformed = { ok: true; output: NewTransform } | { ok: false; failure: TransformFailure; logs: string };

/** Runs a delivery's transform: the worker process's sandbox pool, the output serialised as it will be sent. */
export type DeliveryTransform = (job: TransformJob) => Promise<Transformed>;

/** Whether a delivery runs its transform now: the run's first attempt, with nothing stored for the run yet. */
export const transformsNow = (
  code: string | null,
  run: { attemptCount: number; runStartAttempt: number; transformed?: StoredTransform | null | undefined },
): code is string => code !== null && !run.transformed && run.attemptCount === run.runStartAttempt;

const lowerCased = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/**
 * The transform's input: the webhook as received (headers lower-cased, as they are stored), its body the stored
 * bytes as they are, parsed in the sandbox only (JSON; else its text; an empty body null).
 */
export const transformInputOf = (event: StoredEvent): TransformInput => ({
  bodyJson: Buffer.from(event.body.buffer, event.body.byteOffset, event.body.byteLength).toString('utf8'),
  headers: lowerCased(event.headers),
  path: event.path,
  query: event.query,
});

/** A path and its query as a URL writes them: `/orders?a=1&a=2`. */
export function pathWithQuery(path: string, query: Record<string, string | string[]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, one);
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}

export function createDeliveryTransform(runner: TransformRunner): DeliveryTransform {
  return async ({ code, event, ruleId, destinationId }) => {
    const context = {
      event_id: event.id,
      source: event.source,
      rule_id: ruleId,
      ...(destinationId !== undefined ? { destination_id: destinationId } : {}),
    };
    // A sandbox that failed on its own (TransformUnavailableError) is not the transform's failure: it is left to
    // throw, a relay fault the job defers and tries again without counting an attempt (relay-faults.ts).
    const result = await runner.run(code, transformInputOf(event), context);
    if (!result.ok) return { ok: false, failure: result.error, logs: result.logs };
    const { request } = result;
    return {
      ok: true,
      output: {
        // The body exactly as the sandbox serialised it: never parsed nor serialised again on the way out.
        body: Buffer.from(result.bodyJson),
        headers: lowerCased(request.headers),
        path: pathWithQuery(request.path, request.query),
        logs: result.logs,
      },
    };
  };
}

/** The attempt's error text of a failed transform: cause, message, line, then the captured console output. */
export function transformErrorText(failure: TransformFailure, logs: string): string {
  const line = failure.line !== undefined ? ` (line ${failure.line})` : '';
  const text = `transform_error: ${failure.cause}: ${failure.message}${line}`;
  return logs === '' ? text : `${text}\n--- logs ---\n${logs}`;
}

/** The target URL with a path and query appended (forward_path_query); unchanged when it cannot be read. */
export function forwardedUrl(targetUrl: string, pathAndQuery: string): string {
  if (pathAndQuery === '') return targetUrl;
  let url: URL;
  try {
    url = new URL(targetUrl);
  } catch {
    return targetUrl;
  }
  const mark = pathAndQuery.indexOf('?');
  const path = mark === -1 ? pathAndQuery : pathAndQuery.slice(0, mark);
  if (path !== '') url.pathname = `${url.pathname.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
  if (mark !== -1)
    new URLSearchParams(pathAndQuery.slice(mark + 1)).forEach((v, name) => url.searchParams.append(name, v));
  return url.toString();
}

/**
 * What a delivery sends: its transformed request when one is stored (the body and headers replace the received
 * ones; the outbound header rules and the relay's own headers apply to them as to received ones), else the
 * webhook as received; the target URL with the path and query appended when `forward` (forward_path_query).
 */
export function payloadOf(
  event: StoredEvent,
  transformed: StoredTransform | null | undefined,
  targetUrl: string,
  forward: boolean,
): { event: StoredEvent; url: string } {
  const sent = transformed ? { ...event, body: transformed.body, headers: transformed.headers } : event;
  if (!forward) return { event: sent, url: targetUrl };
  const pathAndQuery = transformed ? (transformed.path ?? '') : pathWithQuery(event.path, event.query);
  return { event: sent, url: forwardedUrl(targetUrl, pathAndQuery) };
}
