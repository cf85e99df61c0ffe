import { DEDUP_PRESETS, HMAC_ALGORITHMS, SIGNATURE_ENCODINGS, VERIFICATION_PRESETS } from '@relay/client';
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors';
import { oneOf } from '../admin-kit';
import { collect, positiveInt } from '../command-kit';
import type { Rule, RuleUpdateBody } from './rule-views';

// The rule options (docs/rules.md) as `relay rules create` and `update` flags, turned into the API's JSON.

type Dedup = NonNullable<Rule['dedup']>;
type Verification = NonNullable<Rule['verification']>;
type Policy = NonNullable<Rule['delivery_policy']>;
type Outbound = Rule['outbound_headers'];

const FORWARDABLE = ['authorization'] as const satisfies readonly Outbound['forward'][number][];

export interface RuleOptionFlags {
  /** A preset, `header:NAME` or `pointer:/path`; false from --no-dedup. */
  dedup?: string | false;
  dedupWindow?: string;
  verify?: string | false;
  verifyHeader?: string;
  verifyAlgorithm?: string;
  verifyEncoding?: string;
  verifyPrefix?: string;
  verifyTolerance?: string;
  verificationSecretStdin?: boolean;
  clearVerificationSecret?: boolean;
  unhealthyAfter?: string;
  /** `source`, `header:NAME` or `pointer:/path`; false from --no-ordering. */
  ordering?: string | false;
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

/** `header:NAME` or `pointer:/path` (and the extra words a flag allows), as the API's key source. */
function keySource<T extends string>(value: string, flag: string, words: readonly T[]) {
  if ((words as readonly string[]).includes(value)) return { word: value as T };
  const [kind, ...rest] = value.split(':');
  const what = rest.join(':');
  if (kind === 'header' && what) return { header: what };
  if (kind === 'pointer' && what) return { json_pointer: what };
  throw new UsageError(`${flag} takes ${[...words, 'header:NAME', 'pointer:/path'].join(', ')}, got "${value}"`);
}

function headerPair(value: string): [string, string] {
  const at = value.indexOf('=');
  if (at < 1) throw new UsageError(`--set-header takes NAME=VALUE, got "${value}"`);
  return [value.slice(0, at), value.slice(at + 1)];
}

/** Adds the option flags to `rules create` (update: true adds the ones that clear something too). */
export function addRuleOptionFlags(cmd: Command, update: boolean): Command {
  cmd
    .option('--dedup <key>', `deduplicate by ${DEDUP_PRESETS.join('|')}, header:NAME or pointer:/json/pointer`)
    .option('--dedup-window <duration>', 'how long a key is remembered (default 24h)')
    .option('--verify <preset>', `verify inbound signatures: ${VERIFICATION_PRESETS.join('|')}`)
    .option('--verify-header <name>', 'hmac: the header carrying the signature')
    .option('--verify-algorithm <name>', `hmac: ${HMAC_ALGORITHMS.join('|')} (default sha256)`)
    .option('--verify-encoding <name>', `hmac: ${SIGNATURE_ENCODINGS.join('|')} (default hex)`)
    .option('--verify-prefix <text>', 'hmac: text before the digest, such as sha256=')
    .option('--verify-tolerance <duration>', 'stripe, slack, standard_webhooks: oldest signed timestamp accepted')
    .option('--verification-secret-stdin', "read the sender's signing secret (to verify with) from stdin")
    .option(
      '--unhealthy-after <duration>',
      'failing this long with no success turns the rule unhealthy (`default`: the install-wide 5d)',
    )
    .option('--ordering <key>', 'deliver one at a time per key: source, header:NAME or pointer:/json/pointer')
    .option('--max-attempts <n>', 'delivery attempts of this rule (over RETRY_MAX_ATTEMPTS)')
    .option('--backoff-base <duration>', 'first retry delay of this rule')
    .option('--backoff-cap <duration>', 'longest retry delay of this rule')
    .option('--timeout <duration>', 'delivery timeout of this rule (at most 120s)')
    .option('--forward-header <name>', 'an inbound header withheld by default to forward (authorization)', collect)
    .option('--set-header <name=value>', 'a header sent with every delivery (repeat it)', collect)
    .option('--remove-header <name>', 'an inbound header never forwarded (repeat it)', collect);
  if (update) {
    cmd
      .option('--no-dedup', 'stop deduplicating')
      .option('--no-verify', 'stop verifying inbound signatures')
      .option('--clear-verification-secret', 'remove the verification secret')
      .option('--no-ordering', 'deliver in parallel again')
      .option('--no-delivery-policy', 'use the install-wide attempts, backoff and timeout again')
      .addOption(new Option('--clear-forward-headers', 'forward no opt-in header').conflicts('forwardHeader'))
      .addOption(new Option('--clear-set-headers', 'set no header').conflicts('setHeader'))
      .addOption(new Option('--clear-remove-headers', 'remove no inbound header').conflicts('removeHeader'));
  }
  return cmd;
}

function dedupOf(f: RuleOptionFlags, stored: Dedup | null | undefined): Dedup | null | undefined {
  if (f.dedup === false) return null;
  const window = f.dedupWindow === undefined ? undefined : durationSeconds(f.dedupWindow);
  if (f.dedup === undefined) {
    if (window === undefined) return undefined;
    if (!stored) throw new UsageError('--dedup-window needs --dedup (this rule does not deduplicate)');
    return { ...stored, window_seconds: window };
  }
  const key = keySource(f.dedup, '--dedup', DEDUP_PRESETS);
  const source = 'word' in key ? { preset: key.word } : key;
  return { ...source, window_seconds: window ?? stored?.window_seconds ?? 86_400 };
}

function verificationOf(f: RuleOptionFlags, stored: Verification | null | undefined) {
  if (f.verify === false) return null;
  const given: Partial<Verification> = {};
  if (f.verifyHeader !== undefined) given.header = f.verifyHeader;
  if (f.verifyAlgorithm !== undefined)
    given.algorithm = oneOf(HMAC_ALGORITHMS, '--verify-algorithm')(f.verifyAlgorithm);
  if (f.verifyEncoding !== undefined)
    given.encoding = oneOf(SIGNATURE_ENCODINGS, '--verify-encoding')(f.verifyEncoding);
  if (f.verifyPrefix !== undefined) given.prefix = f.verifyPrefix;
  if (f.verifyTolerance !== undefined) given.tolerance_seconds = durationSeconds(f.verifyTolerance);
  if (f.verify !== undefined) return { ...given, preset: oneOf(VERIFICATION_PRESETS, '--verify')(f.verify) };
  if (Object.keys(given).length === 0) return undefined;
  if (!stored) throw new UsageError('the --verify-… flags need --verify (this rule does not verify signatures)');
  return { ...stored, ...given };
}

function policyOf(f: RuleOptionFlags, stored: Policy | null | undefined): Policy | null | undefined {
  if (f.deliveryPolicy === false) return null;
  const given: Policy = {};
  if (f.maxAttempts !== undefined) given.max_attempts = positiveInt(f.maxAttempts);
  if (f.backoffBase !== undefined) given.backoff_base_seconds = durationSeconds(f.backoffBase);
  if (f.backoffCap !== undefined) given.backoff_cap_seconds = durationSeconds(f.backoffCap);
  if (f.timeout !== undefined) given.timeout_seconds = durationSeconds(f.timeout);
  return Object.keys(given).length ? { ...stored, ...given } : undefined;
}

function outboundOf(f: RuleOptionFlags, stored: Outbound | undefined): Outbound | undefined {
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

/** Whether turning the flags into a body needs the stored rule: a change to part of an option keeps the rest. */
export function needsStoredRule(f: RuleOptionFlags): boolean {
  const verifyDetail = [f.verifyHeader, f.verifyAlgorithm, f.verifyEncoding, f.verifyPrefix, f.verifyTolerance];
  const policy = [f.maxAttempts, f.backoffBase, f.backoffCap, f.timeout];
  const given = (values: unknown[]) => values.some((v) => v !== undefined && v !== false);
  return (
    (f.dedup === undefined && f.dedupWindow !== undefined) ||
    (f.verify === undefined && given(verifyDetail)) ||
    (f.deliveryPolicy === undefined && given(policy)) ||
    given([
      f.forwardHeader,
      f.setHeader,
      f.removeHeader,
      f.clearForwardHeaders,
      f.clearSetHeaders,
      f.clearRemoveHeaders,
    ])
  );
}

/** The options part of a create or update body; `stored` is the rule an update changes. */
export function ruleOptionsBody(f: RuleOptionFlags, stored?: Rule): RuleUpdateBody {
  if (f.verificationSecretStdin && f.clearVerificationSecret)
    throw new UsageError('give --verification-secret-stdin or --clear-verification-secret, not both');
  const body: RuleUpdateBody = {};
  const dedup = dedupOf(f, stored?.dedup);
  if (dedup !== undefined) body.dedup = dedup;
  const verification = verificationOf(f, stored?.verification);
  if (verification !== undefined) body.verification = verification;
  if (f.clearVerificationSecret) body.verification_secret = null;
  if (f.unhealthyAfter !== undefined)
    body.unhealthy_after_seconds = f.unhealthyAfter === 'default' ? null : durationSeconds(f.unhealthyAfter);
  if (f.ordering === false) body.ordering = null;
  else if (f.ordering !== undefined) {
    const key = keySource(f.ordering, '--ordering', ['source'] as const);
    body.ordering = 'word' in key ? {} : key;
  }
  const policy = policyOf(f, stored?.delivery_policy);
  if (policy !== undefined) body.delivery_policy = policy;
  const outbound = outboundOf(f, stored?.outbound_headers);
  if (outbound !== undefined) body.outbound_headers = outbound;
  return body;
}
