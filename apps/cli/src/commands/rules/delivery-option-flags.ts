import { Option, type Command } from 'commander';
import { UsageError } from '../../errors';
import { oneOf } from '../admin-kit';
import { collect, positiveInt } from '../command-kit';
import { addPacingFlags, needsStoredPacing, pacingBody, type PacingBody, type PacingFlags } from './pacing-flags';
import type { Rule, RuleUpdateBody } from './rule-views';

// The options a rule and each of its destinations both have (docs/rules.md, docs/routing.md): the health span, the
// delivery policy, the outbound headers and pacing (pacing-flags.ts), as flags of `relay rules create|update` and
// `rules destinations add|update`. The API gives a destination these options in the rule's own shapes.

type Policy = NonNullable<Rule['delivery_policy']>;
type Outbound = Rule['outbound_headers'];
/** What an update keeps of the stored rule or destination when a flag changes part of an option. */
export type StoredDelivery = Pick<Rule, 'delivery_policy' | 'outbound_headers' | 'rate_limit'>;
export type DeliveryOptionsBody = Pick<
  RuleUpdateBody,
  'unhealthy_after_seconds' | 'delivery_policy' | 'outbound_headers'
> &
  PacingBody;

const FORWARDABLE = ['authorization'] as const satisfies readonly Outbound['forward'][number][];

export interface DeliveryOptionFlags extends PacingFlags {
  unhealthyAfter?: string;
  maxAttempts?: string;
  backoffBase?: string;
  backoffCap?: string;
  timeout?: string;
  deliveryPolicy?: false;
  forwardHeader?: string[];
  clearForwardHeaders?: boolean;
  setHeader?: string[];
  clearSetHeaders?: boolean;
  removeHeader?: string[];
  clearRemoveHeaders?: boolean;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** Seconds from `90`, `90s`, `15m`, `24h` or `5d`. */
export function durationSeconds(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  const seconds = match ? Number(match[1]) * UNITS[match[2] || 's']! : 0;
  if (!match || seconds < 1)
    throw new UsageError(`expected a duration such as 90, 90s, 15m, 24h or 5d, got "${value}"`);
  return seconds;
}

function headerPair(value: string): [string, string] {
  const at = value.indexOf('=');
  if (at < 1) throw new UsageError(`--set-header takes NAME=VALUE, got "${value}"`);
  return [value.slice(0, at), value.slice(at + 1)];
}

/** Adds the flags; `what` names the owner in the help ("rule", "destination"); update adds the clearing ones. */
export function addDeliveryOptionFlags(cmd: Command, what: 'rule' | 'destination', update: boolean): Command {
  cmd
    .option(
      '--unhealthy-after <duration>',
      `failing this long with no success turns the ${what} unhealthy (\`default\`: the install-wide 5d)`,
    )
    .option('--max-attempts <n>', `delivery attempts of this ${what} (over RETRY_MAX_ATTEMPTS)`)
    .option('--backoff-base <duration>', `first retry delay of this ${what}`)
    .option('--backoff-cap <duration>', `longest retry delay of this ${what}`)
    .option('--timeout <duration>', `delivery timeout of this ${what} (at most 120s)`)
    .option('--forward-header <name>', 'an inbound header withheld by default to forward (authorization)', collect)
    .option('--set-header <name=value>', 'a header sent with every delivery (repeat it)', collect)
    .option('--remove-header <name>', 'an inbound header never forwarded (repeat it)', collect);
  if (update) {
    cmd
      .option('--no-delivery-policy', 'use the install-wide attempts, backoff and timeout again')
      .addOption(new Option('--clear-forward-headers', 'forward no opt-in header').conflicts('forwardHeader'))
      .addOption(new Option('--clear-set-headers', 'set no header').conflicts('setHeader'))
      .addOption(new Option('--clear-remove-headers', 'remove no inbound header').conflicts('removeHeader'));
  }
  return addPacingFlags(cmd, what, update);
}

function policyOf(f: DeliveryOptionFlags, stored: Policy | null | undefined): Policy | null | undefined {
  if (f.deliveryPolicy === false) return null;
  const given: Policy = {};
  if (f.maxAttempts !== undefined) given.max_attempts = positiveInt(f.maxAttempts);
  if (f.backoffBase !== undefined) given.backoff_base_seconds = durationSeconds(f.backoffBase);
  if (f.backoffCap !== undefined) given.backoff_cap_seconds = durationSeconds(f.backoffCap);
  if (f.timeout !== undefined) given.timeout_seconds = durationSeconds(f.timeout);
  return Object.keys(given).length ? { ...stored, ...given } : undefined;
}

function outboundOf(f: DeliveryOptionFlags, stored: Outbound | undefined): Outbound | undefined {
  const forward = f.clearForwardHeaders ? [] : f.forwardHeader?.map(oneOf(FORWARDABLE, '--forward-header'));
  const set = f.clearSetHeaders ? {} : f.setHeader && Object.fromEntries(f.setHeader.map(headerPair));
  const remove = f.clearRemoveHeaders ? [] : f.removeHeader;
  if (forward === undefined && set === undefined && remove === undefined) return undefined;
  // The API replaces the object whole: a list not named keeps what is stored.
  return {
    forward: forward ?? stored?.forward ?? [],
    set: set ?? stored?.set ?? {},
    remove: remove ?? stored?.remove ?? [],
  };
}

const given = (values: unknown[]) => values.some((v) => v !== undefined && v !== false);

/** Whether the flags change part of the policy or of the header lists, which keeps the stored rest. */
export function needsStoredDelivery(f: DeliveryOptionFlags): boolean {
  const policy = [f.maxAttempts, f.backoffBase, f.backoffCap, f.timeout];
  const headers = [
    f.forwardHeader,
    f.setHeader,
    f.removeHeader,
    f.clearForwardHeaders,
    f.clearSetHeaders,
    f.clearRemoveHeaders,
  ];
  return (f.deliveryPolicy === undefined && given(policy)) || given(headers) || needsStoredPacing(f);
}

/** The health span, policy, headers and pacing part of a body; `stored` is what an update changes. */
export function deliveryOptionsBody(f: DeliveryOptionFlags, stored?: StoredDelivery): DeliveryOptionsBody {
  const body: DeliveryOptionsBody = pacingBody(f, stored?.rate_limit);
  if (f.unhealthyAfter !== undefined)
    body.unhealthy_after_seconds = f.unhealthyAfter === 'default' ? null : durationSeconds(f.unhealthyAfter);
  const policy = policyOf(f, stored?.delivery_policy);
  if (policy !== undefined) body.delivery_policy = policy;
  const outbound = outboundOf(f, stored?.outbound_headers);
  if (outbound !== undefined) body.outbound_headers = outbound;
  return body;
}
