import { RATE_LIMIT_PERIODS } from '@relay/client';
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors';
import { oneOf } from '../admin-kit';
import { positiveInt } from '../command-kit';
import type { Rule, RuleUpdateBody } from './rule-views';

// Pacing and path forwarding (docs/rules.md, "Transform and pacing") as flags of `relay rules create|update` and
// `rules destinations add|update`: `--rate-limit 5/second --burst 10`, `--max-concurrency 2`, `--forward-path-query`.
// The ranges are the API's: it refuses a value out of them naming the field.

type RateLimit = NonNullable<Rule['rate_limit']>;
export type PacingBody = Pick<RuleUpdateBody, 'rate_limit' | 'max_concurrency' | 'forward_path_query'>;

export interface PacingFlags {
  /** `<n>/<period>`; false from --no-rate-limit. */
  rateLimit?: string | false;
  burst?: string;
  maxConcurrency?: string | false;
  forwardPathQuery?: boolean;
}

/** Adds the flags; `what` names the owner in the help; update adds the ones that turn pacing off. */
export function addPacingFlags(cmd: Command, what: 'rule' | 'destination', update: boolean): Command {
  cmd
    .option(
      '--rate-limit <n/period>',
      `deliveries of this ${what} per ${RATE_LIMIT_PERIODS.join('|')}, e.g. 5/second (over the rate they wait)`,
    )
    .option('--burst <n>', 'deliveries that may go at once after a quiet spell (default: the limit)')
    .option('--max-concurrency <n>', `at most this many deliveries of this ${what} in flight at once`)
    .option('--forward-path-query', "append the transform's returned path and query to the target URL");
  if (update) {
    cmd
      .addOption(new Option('--no-rate-limit', 'stop pacing by rate').conflicts('burst'))
      .option('--no-max-concurrency', 'no limit on deliveries in flight')
      .option('--no-forward-path-query', 'deliver to the target URL as set, whatever the transform returns');
  }
  return cmd;
}

/** `5/second` (or `5/minute`, `5/hour`) as the API's `{limit, period}`. */
export function parseRateLimit(value: string): Pick<RateLimit, 'limit' | 'period'> {
  const [limit, period, ...rest] = value.split('/');
  if (!limit || !period || rest.length)
    throw new UsageError(`--rate-limit takes <n>/<${RATE_LIMIT_PERIODS.join('|')}>, e.g. 5/second, got "${value}"`);
  return { limit: positiveInt(limit.trim()), period: oneOf(RATE_LIMIT_PERIODS, '--rate-limit period')(period.trim()) };
}

function rateLimitOf(f: PacingFlags, stored: Rule['rate_limit'] | undefined): RateLimit | null | undefined {
  if (f.rateLimit === false) return null;
  const burst = f.burst === undefined ? undefined : positiveInt(f.burst);
  if (f.rateLimit !== undefined) return { ...parseRateLimit(f.rateLimit), ...(burst ? { burst } : {}) };
  if (burst === undefined) return undefined;
  if (!stored) throw new UsageError('--burst needs --rate-limit (no rate limit is set)');
  return { ...stored, burst };
}

/** Whether the flags change part of the rate limit (--burst alone), which keeps the stored limit and period. */
export const needsStoredPacing = (f: PacingFlags): boolean => f.burst !== undefined && f.rateLimit === undefined;

/** The pacing part of a body; `stored` is the rate limit an update changes. */
export function pacingBody(f: PacingFlags, stored?: Rule['rate_limit']): PacingBody {
  const body: PacingBody = {};
  const rateLimit = rateLimitOf(f, stored);
  if (rateLimit !== undefined) body.rate_limit = rateLimit;
  if (f.maxConcurrency === false) body.max_concurrency = null;
  else if (f.maxConcurrency !== undefined) body.max_concurrency = positiveInt(f.maxConcurrency);
  if (f.forwardPathQuery !== undefined) body.forward_path_query = f.forwardPathQuery;
  return body;
}
