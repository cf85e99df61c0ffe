import type { RATE_LIMIT_PERIODS } from '@relay/client';
import { TRANSFORM_PACING_LIMITS } from '@relay/client';
import type { Rule } from './rule-types';

// The transform and pacing of a target (docs/rules.md, "Transform and pacing"; docs/transformations.md), the rule's
// own or a destination's, as the forms edit them, what a create or an update sends of them, and what the inputs
// hold that the API would refuse. The bounds are the typed client's (checked there against the contracts).

export type RateLimit = NonNullable<Rule['rate_limit']>;
export type RatePeriod = (typeof RATE_LIMIT_PERIODS)[number];
type Num = number | string;

export interface TransformPacingDraft {
  /** The transform's code; '' is none (null once sent). */
  transformText: string;
  forwardPathQuery: boolean;
  /** '' turns the rate limit off (and the burst with it). */
  rateLimit: Num;
  ratePeriod: RatePeriod;
  /** '' is the API's default: the limit. */
  rateBurst: Num;
  /** '' is no limit. */
  maxConcurrency: Num;
}

/** What a saved rule or destination holds of these; `transform` is absent in a list's item (it says `has_transform`). */
export interface StoredTransformPacing {
  transform?: string | null | undefined;
  has_transform: boolean;
  forward_path_query: boolean;
  rate_limit: RateLimit | null;
  max_concurrency: number | null;
}

export interface TransformPacingChange {
  transform?: string | null;
  forward_path_query?: boolean;
  rate_limit?: RateLimit | null;
  max_concurrency?: number | null;
}

/** An example in Hookdeck's shape, offered in an empty editor. */
export const TRANSFORM_EXAMPLE = `addHandler('transform', (request, context) => {
  // request: { body, headers, path, query } of the webhook as received; context: event, source, rule ids.
  request.headers['x-relay-event'] = context.event_id;
  return request;
});
`;

const typed = (n: Num) => n !== '';
const bytes = (text: string) => new TextEncoder().encode(text).length;

export function transformPacingDraftOf(stored?: StoredTransformPacing): TransformPacingDraft {
  const rate = stored?.rate_limit ?? null;
  return {
    transformText: stored?.transform ?? '',
    forwardPathQuery: stored?.forward_path_query ?? false,
    rateLimit: rate?.limit ?? '',
    ratePeriod: rate?.period ?? 'second',
    rateBurst: rate?.burst ?? '',
    maxConcurrency: stored?.max_concurrency ?? '',
  };
}

/** An integer from 1 to `max`, or why not. */
function countProblem(value: Num, max: number): string | undefined {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) return 'A whole number, at least 1';
  if (n > max) return `At most ${max.toLocaleString('en-US')}`;
  return undefined;
}

/** The fields (by the API's names) whose input would be refused, each with why; none: it can be sent. */
export function transformPacingProblems(d: TransformPacingDraft): Partial<Record<string, string>> {
  const problems: Partial<Record<string, string>> = {};
  const { transformBytes, rateLimit, maxConcurrency } = TRANSFORM_PACING_LIMITS;
  const size = bytes(d.transformText);
  if (size > transformBytes) problems.transform = `At most ${transformBytes / 1024} KB: this is ${size} bytes`;
  if (typed(d.rateLimit)) {
    problems['rate_limit.limit'] = countProblem(d.rateLimit, rateLimit);
    if (typed(d.rateBurst)) problems['rate_limit.burst'] = countProblem(d.rateBurst, rateLimit);
  } else if (typed(d.rateBurst)) problems['rate_limit.limit'] = 'A burst needs a limit';
  if (typed(d.maxConcurrency)) problems.max_concurrency = countProblem(d.maxConcurrency, maxConcurrency);
  return Object.fromEntries(Object.entries(problems).filter(([, message]) => message));
}

function rateLimitOf(d: TransformPacingDraft): RateLimit | null {
  if (!typed(d.rateLimit)) return null;
  const rate: RateLimit = { limit: Number(d.rateLimit), period: d.ratePeriod };
  if (typed(d.rateBurst)) rate.burst = Number(d.rateBurst);
  return rate;
}

const sameRate = (a: RateLimit | null, b: RateLimit | null) =>
  a === null || b === null ? a === b : a.limit === b.limit && a.period === b.period && a.burst === b.burst;

/** What a create sends (those set) or an update sends (those that differ from the stored ones); null turns one off. */
export function transformPacingChange(d: TransformPacingDraft, stored?: StoredTransformPacing): TransformPacingChange {
  const change: TransformPacingChange = {};
  const transform = d.transformText.trim() === '' ? null : d.transformText;
  // A list's item does not carry the code: unknown, it is never replaced (the forms load the full one first).
  const codeKnown = !stored?.has_transform || stored.transform !== undefined;
  if (codeKnown && transform !== (stored?.transform ?? null)) change.transform = transform;
  if (d.forwardPathQuery !== (stored?.forward_path_query ?? false)) change.forward_path_query = d.forwardPathQuery;
  const rate = rateLimitOf(d);
  if (!sameRate(rate, stored?.rate_limit ?? null)) change.rate_limit = rate;
  const concurrency = typed(d.maxConcurrency) ? Number(d.maxConcurrency) : null;
  if (concurrency !== (stored?.max_concurrency ?? null)) change.max_concurrency = concurrency;
  return change;
}

/** "5 / second (burst 10), 2 at once", or '' when there is no pacing: for the rule page and the destinations. */
export function pacingSummary(target: { rate_limit: RateLimit | null; max_concurrency: number | null }): string {
  const rate = target.rate_limit;
  const parts = [
    rate ? `${rate.limit} / ${rate.period}${rate.burst === undefined ? '' : ` (burst ${rate.burst})`}` : '',
    target.max_concurrency === null ? '' : `${target.max_concurrency} at once`,
  ];
  return parts.filter(Boolean).join(', ');
}

/** What the limiter says now (one rule's or destination's read carries it; docs/rules.md "Pacing"). */
export interface PacingStateView {
  effective_limit: number | null;
  period: string | null;
  in_flight: number;
  waiting: number;
  held_until: string | null;
}

/** The pacing state in one line, e.g. "2.5 / second in force, 1 in flight, 4 waiting, held until 14:03:05". */
export function pacingStateText(state: PacingStateView | null | undefined, now = Date.now()): string {
  if (!state) return 'nothing held back';
  const held = state.held_until && Date.parse(state.held_until) > now ? state.held_until : null;
  const parts = [
    state.effective_limit === null ? '' : `${state.effective_limit} / ${state.period} in force`,
    `${state.in_flight} in flight`,
    `${state.waiting} waiting`,
    held ? `held until ${new Date(held).toLocaleTimeString()} (Retry-After)` : '',
  ];
  return parts.filter(Boolean).join(', ');
}
