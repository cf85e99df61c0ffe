import { DEDUP_PRESETS, HMAC_ALGORITHMS, SIGNATURE_ENCODINGS, VERIFICATION_PRESETS } from '@relay/client';
import type { Command } from 'commander';
import { UsageError } from '../../errors';
import { oneOf } from '../admin-kit';
import {
  addDeliveryOptionFlags,
  deliveryOptionsBody,
  durationSeconds,
  needsStoredDelivery,
  type DeliveryOptionFlags,
} from './delivery-option-flags';
import type { Rule, RuleUpdateBody } from './rule-views';

// The rule options (docs/rules.md) as `relay rules create` and `update` flags, turned into the API's JSON; the
// ones destinations have too (span, policy, headers) are in delivery-option-flags.ts.

type Dedup = NonNullable<Rule['dedup']>;
type Verification = NonNullable<Rule['verification']>;

export interface RuleOptionFlags extends DeliveryOptionFlags {
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
  /** `source`, `header:NAME` or `pointer:/path`; false from --no-ordering. */
  ordering?: string | false;
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
    .option('--ordering <key>', 'deliver one at a time per key: source, header:NAME or pointer:/json/pointer');
  if (update) {
    cmd
      .option('--no-dedup', 'stop deduplicating')
      .option('--no-verify', 'stop verifying inbound signatures')
      .option('--clear-verification-secret', 'remove the verification secret')
      .option('--no-ordering', 'deliver in parallel again');
  }
  return addDeliveryOptionFlags(cmd, 'rule', update);
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

/** Whether turning the flags into a body needs the stored rule: a change to part of an option keeps the rest. */
export function needsStoredRule(f: RuleOptionFlags): boolean {
  const verifyDetail = [f.verifyHeader, f.verifyAlgorithm, f.verifyEncoding, f.verifyPrefix, f.verifyTolerance];
  return (
    (f.dedup === undefined && f.dedupWindow !== undefined) ||
    (f.verify === undefined && verifyDetail.some((v) => v !== undefined)) ||
    needsStoredDelivery(f)
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
  if (f.ordering === false) body.ordering = null;
  else if (f.ordering !== undefined) {
    const key = keySource(f.ordering, '--ordering', ['source'] as const);
    body.ordering = 'word' in key ? {} : key;
  }
  return { ...body, ...deliveryOptionsBody(f, stored) };
}
