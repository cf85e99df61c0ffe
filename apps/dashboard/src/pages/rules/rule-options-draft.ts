import { filterDraftOf, parseFilterDraft, type FilterDraft, type RoutingFilter } from './filter-draft';
import type {
  DedupOption,
  DeliveryPolicy,
  OrderingOption,
  OutboundHeaders,
  Rule,
  VerificationOption,
} from './rule-types';

// The rule options as the form edits them (strings and numbers as the inputs hold them), and the JSON a create or
// an update sends. An update sends only the options that differ from the stored rule; null turns one off.

type Num = number | string;
export type KeyMode = 'off' | 'preset' | 'header' | 'json_pointer';
export type OrderingMode = 'off' | 'source' | 'header' | 'json_pointer';
export type SpanUnit = 'hours' | 'days';

export interface OptionsDraft extends FilterDraft {
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
  /** '' uses the install-wide threshold. */
  unhealthyAfter: Num;
  unhealthyUnit: SpanUnit;
  orderingMode: OrderingMode;
  orderingHeader: string;
  orderingPointer: string;
  /** Each '' uses the install-wide setting; all '' turns the policy off. */
  maxAttempts: Num;
  backoffBaseSeconds: Num;
  backoffCapSeconds: Num;
  timeoutSeconds: Num;
  setHeaders: { name: string; value: string }[];
  /** Comma-separated header names. */
  removeHeaders: string;
}

const SPAN: Record<SpanUnit, number> = { hours: 3_600, days: 86_400 };

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
  const policy = rule?.delivery_policy ?? {};
  const unhealthy = rule?.health.unhealthy_after_seconds ?? null;
  const unit: SpanUnit = unhealthy !== null && unhealthy % SPAN.days === 0 ? 'days' : 'hours';
  return {
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
    unhealthyAfter: unhealthy === null ? '' : unhealthy / SPAN[unit],
    unhealthyUnit: unit,
    orderingMode: orderingMode(ordering),
    orderingHeader: ordering?.header ?? '',
    orderingPointer: ordering?.json_pointer ?? '',
    maxAttempts: policy.max_attempts ?? '',
    backoffBaseSeconds: policy.backoff_base_seconds ?? '',
    backoffCapSeconds: policy.backoff_cap_seconds ?? '',
    timeoutSeconds: policy.timeout_seconds ?? '',
    setHeaders: Object.entries(rule?.outbound_headers.set ?? {}).map(([name, value]) => ({ name, value })),
    removeHeaders: (rule?.outbound_headers.remove ?? []).join(', '),
    ...filterDraftOf(rule?.filter),
  };
}

const given = (n: Num) => n !== '' && Number.isFinite(Number(n));

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

function policyOf(d: OptionsDraft): DeliveryPolicy | null {
  const p: DeliveryPolicy = {};
  if (given(d.maxAttempts)) p.max_attempts = Number(d.maxAttempts);
  if (given(d.backoffBaseSeconds)) p.backoff_base_seconds = Number(d.backoffBaseSeconds);
  if (given(d.backoffCapSeconds)) p.backoff_cap_seconds = Number(d.backoffCapSeconds);
  if (given(d.timeoutSeconds)) p.timeout_seconds = Number(d.timeoutSeconds);
  return Object.keys(p).length ? p : null;
}

function outboundOf(d: OptionsDraft, rule?: Rule): OutboundHeaders {
  const set = Object.fromEntries(
    d.setHeaders.filter((h) => h.name.trim()).map((h) => [h.name.trim().toLowerCase(), h.value]),
  );
  const remove = d.removeHeaders
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  // Forwarded headers are not edited here: the stored list is kept (the API replaces the object whole).
  return { forward: rule?.outbound_headers.forward ?? [], set, remove };
}

/** JSON with sorted keys: stored JSON (jsonb) comes back in its own key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

export interface OptionsChange {
  dedup?: DedupOption | null;
  verification?: VerificationOption | null;
  verification_secret?: string | null;
  unhealthy_after_seconds?: number | null;
  ordering?: OrderingOption | null;
  delivery_policy?: DeliveryPolicy | null;
  outbound_headers?: OutboundHeaders;
  filter?: RoutingFilter | null;
}

/** What a create sends (options turned on) or an update sends (options that changed). */
export function optionsChange(d: OptionsDraft, rule?: Rule): OptionsChange {
  const unhealthy = given(d.unhealthyAfter) ? Math.round(Number(d.unhealthyAfter) * SPAN[d.unhealthyUnit]) : null;
  const outbound = outboundOf(d, rule);
  const next = {
    dedup: dedupOf(d),
    verification: verificationOf(d),
    unhealthy_after_seconds: unhealthy,
    ordering: orderingOf(d),
    delivery_policy: policyOf(d),
  };
  const stored = {
    dedup: rule?.dedup ?? null,
    verification: rule?.verification ?? null,
    unhealthy_after_seconds: rule?.health.unhealthy_after_seconds ?? null,
    ordering: rule?.ordering ?? null,
    delivery_policy: rule?.delivery_policy ?? null,
  };
  const change: OptionsChange = {};
  for (const key of Object.keys(next) as (keyof typeof next)[])
    if (canonical(next[key]) !== canonical(stored[key])) Object.assign(change, { [key]: next[key] });
  const storedOutbound = rule?.outbound_headers ?? { forward: [], set: {}, remove: [] };
  if (canonical(outbound) !== canonical(storedOutbound)) change.outbound_headers = outbound;
  // Text that is not a filter yet is not sent: the editor shows why, and the form waits for it.
  const filter = parseFilterDraft(d);
  if (filter.ok && canonical(filter.filter) !== canonical(rule?.filter ?? null)) change.filter = filter.filter;
  if (d.verificationSecret) change.verification_secret = d.verificationSecret;
  else if (rule && d.removeVerificationSecret) change.verification_secret = null;
  return change;
}
