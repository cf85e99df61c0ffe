import { canonical, given, targetDraftOf, targetOptionsChange, type Num } from './target-options-draft';
import type { StoredTargetOptions, TargetOptionsChange, TargetOptionsDraft } from './target-options-draft';
import type { DedupOption, OrderingOption, Rule, VerificationOption } from './rule-types';

// The rule options as the form edits them (strings and numbers as the inputs hold them), and the JSON a create or
// an update sends. An update sends only the options that differ from the stored rule; null turns one off. The
// options a destination has too (filter, health, policy, headers, transform, pacing) are target-options-draft.ts's.

export type KeyMode = 'off' | 'preset' | 'header' | 'json_pointer';
export type OrderingMode = 'off' | 'source' | 'header' | 'json_pointer';

export interface OptionsDraft extends TargetOptionsDraft {
  dedupMode: KeyMode;
  dedupPreset: NonNullable<DedupOption['preset']>;
  dedupHeader: string;
  dedupPointer: string;
  dedupWindowHours: Num;
  verifyPreset: VerificationOption['preset'] | 'off';
  verifyHeader: string;
  /** '' leaves the API's default. */
  verifyAlgorithm: NonNullable<VerificationOption['algorithm']> | '';
  verifyEncoding: NonNullable<VerificationOption['encoding']> | '';
  verifyPrefix: string;
  verifyToleranceSeconds: Num;
  /** Write-only: sent only when typed. */
  verificationSecret: string;
  removeVerificationSecret: boolean;
  orderingMode: OrderingMode;
  orderingHeader: string;
  orderingPointer: string;
}

/** The rule's options a destination has too, as the view shows them. */
export const targetOptionsOf = (rule: Rule): StoredTargetOptions => ({
  filter: rule.filter,
  unhealthy_after_seconds: rule.health.unhealthy_after_seconds,
  delivery_policy: rule.delivery_policy,
  outbound_headers: rule.outbound_headers,
  transform: rule.transform,
  has_transform: rule.has_transform,
  forward_path_query: rule.forward_path_query,
  rate_limit: rule.rate_limit,
  max_concurrency: rule.max_concurrency,
});

function keyMode(key: DedupOption | null): KeyMode {
  if (!key) return 'off';
  return key.preset ? 'preset' : key.header !== undefined ? 'header' : 'json_pointer';
}

function orderingMode(ordering: OrderingOption | null): OrderingMode {
  if (!ordering) return 'off';
  return ordering.header !== undefined ? 'header' : ordering.json_pointer !== undefined ? 'json_pointer' : 'source';
}

/** The form's starting values: the stored rule's options, or all off for a new rule. */
export function draftOf(rule?: Rule): OptionsDraft {
  const dedup = rule?.dedup ?? null;
  const v = rule?.verification ?? null;
  const ordering = rule?.ordering ?? null;
  return {
    ...targetDraftOf(rule && targetOptionsOf(rule)),
    dedupMode: keyMode(dedup),
    dedupPreset: dedup?.preset ?? 'github',
    dedupHeader: dedup?.header ?? '',
    dedupPointer: dedup?.json_pointer ?? '',
    dedupWindowHours: (dedup?.window_seconds ?? 86_400) / 3_600,
    verifyPreset: v?.preset ?? 'off',
    verifyHeader: v?.header ?? '',
    verifyAlgorithm: v?.algorithm ?? '',
    verifyEncoding: v?.encoding ?? '',
    verifyPrefix: v?.prefix ?? '',
    verifyToleranceSeconds: v?.tolerance_seconds ?? '',
    verificationSecret: '',
    removeVerificationSecret: false,
    orderingMode: orderingMode(ordering),
    orderingHeader: ordering?.header ?? '',
    orderingPointer: ordering?.json_pointer ?? '',
  };
}

function dedupOf(d: OptionsDraft): DedupOption | null {
  if (d.dedupMode === 'off') return null;
  const window_seconds = given(d.dedupWindowHours) ? Math.round(Number(d.dedupWindowHours) * 3_600) : 86_400;
  if (d.dedupMode === 'preset') return { preset: d.dedupPreset, window_seconds };
  if (d.dedupMode === 'header') return { header: d.dedupHeader.trim(), window_seconds };
  return { json_pointer: d.dedupPointer.trim(), window_seconds };
}

function verificationOf(d: OptionsDraft): VerificationOption | null {
  if (d.verifyPreset === 'off') return null;
  const v: VerificationOption = { preset: d.verifyPreset };
  if (d.verifyPreset === 'hmac') {
    v.header = d.verifyHeader.trim();
    if (d.verifyAlgorithm) v.algorithm = d.verifyAlgorithm;
    if (d.verifyEncoding) v.encoding = d.verifyEncoding;
    if (d.verifyPrefix) v.prefix = d.verifyPrefix;
  } else if (given(d.verifyToleranceSeconds)) v.tolerance_seconds = Number(d.verifyToleranceSeconds);
  return v;
}

function orderingOf(d: OptionsDraft): OrderingOption | null {
  if (d.orderingMode === 'off') return null;
  if (d.orderingMode === 'header') return { header: d.orderingHeader.trim() };
  if (d.orderingMode === 'json_pointer') return { json_pointer: d.orderingPointer.trim() };
  return {};
}

export interface OptionsChange extends TargetOptionsChange {
  dedup?: DedupOption | null;
  verification?: VerificationOption | null;
  verification_secret?: string | null;
  ordering?: OrderingOption | null;
}

/** What a create sends (options turned on) or an update sends (options that changed). */
export function optionsChange(d: OptionsDraft, rule?: Rule): OptionsChange {
  const next = { dedup: dedupOf(d), verification: verificationOf(d), ordering: orderingOf(d) };
  const stored = {
    dedup: rule?.dedup ?? null,
    verification: rule?.verification ?? null,
    ordering: rule?.ordering ?? null,
  };
  const change: OptionsChange = targetOptionsChange(d, rule && targetOptionsOf(rule));
  for (const key of Object.keys(next) as (keyof typeof next)[])
    if (canonical(next[key]) !== canonical(stored[key])) Object.assign(change, { [key]: next[key] });
  if (d.verificationSecret) change.verification_secret = d.verificationSecret;
  else if (rule && d.removeVerificationSecret) change.verification_secret = null;
  return change;
}
