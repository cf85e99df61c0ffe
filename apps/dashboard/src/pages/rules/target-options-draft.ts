import { filterDraftOf, parseFilterDraft, type FilterDraft, type RoutingFilter } from './filter-draft';
import type { DeliveryPolicy, OutboundHeaders } from './rule-types';
import { transformPacingChange, transformPacingDraftOf, transformPacingProblems } from './transform-pacing-draft';
import type { StoredTransformPacing, TransformPacingChange, TransformPacingDraft } from './transform-pacing-draft';

// The options every target has, the rule's own (the primary) and each destination's (docs/routing.md): filter,
// health threshold, delivery policy, outbound headers, transform and pacing, as the forms edit them (strings and numbers as the inputs
// hold them), and the JSON a create or an update sends. The rule form adds the rule-only options on top.

export type Num = number | string;
export type SpanUnit = 'hours' | 'days';

export interface TargetOptionsDraft extends FilterDraft, TransformPacingDraft {
  /** '' uses the install-wide threshold. */
  unhealthyAfter: Num;
  unhealthyUnit: SpanUnit;
  /** Each '' uses the install-wide setting; all '' turns the policy off. */
  maxAttempts: Num;
  backoffBaseSeconds: Num;
  backoffCapSeconds: Num;
  timeoutSeconds: Num;
  setHeaders: { name: string; value: string }[];
  /** Comma-separated header names. */
  removeHeaders: string;
}

/** What a saved rule or destination holds of these options (as its view shows them). */
export interface StoredTargetOptions extends StoredTransformPacing {
  filter: RoutingFilter | null;
  unhealthy_after_seconds: number | null;
  delivery_policy: DeliveryPolicy | null;
  outbound_headers: OutboundHeaders;
}

/** What a create (options turned on) or an update (options that changed) sends of them. */
export interface TargetOptionsChange extends TransformPacingChange {
  unhealthy_after_seconds?: number | null;
  delivery_policy?: DeliveryPolicy | null;
  outbound_headers?: OutboundHeaders;
  filter?: RoutingFilter | null;
}

const SPAN: Record<SpanUnit, number> = { hours: 3_600, days: 86_400 };

export const given = (n: Num) => n !== '' && Number.isFinite(Number(n));

/** JSON with sorted keys: stored JSON (jsonb) comes back in its own key order. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

/** The form's starting values: the stored options, or all off for a new target. */
export function targetDraftOf(stored?: StoredTargetOptions): TargetOptionsDraft {
  const policy = stored?.delivery_policy ?? {};
  const unhealthy = stored?.unhealthy_after_seconds ?? null;
  const unit: SpanUnit = unhealthy !== null && unhealthy % SPAN.days === 0 ? 'days' : 'hours';
  return {
    unhealthyAfter: unhealthy === null ? '' : unhealthy / SPAN[unit],
    unhealthyUnit: unit,
    maxAttempts: policy.max_attempts ?? '',
    backoffBaseSeconds: policy.backoff_base_seconds ?? '',
    backoffCapSeconds: policy.backoff_cap_seconds ?? '',
    timeoutSeconds: policy.timeout_seconds ?? '',
    setHeaders: Object.entries(stored?.outbound_headers.set ?? {}).map(([name, value]) => ({ name, value })),
    removeHeaders: (stored?.outbound_headers.remove ?? []).join(', '),
    ...filterDraftOf(stored?.filter),
    ...transformPacingDraftOf(stored),
  };
}

function policyOf(d: TargetOptionsDraft): DeliveryPolicy | null {
  const p: DeliveryPolicy = {};
  if (given(d.maxAttempts)) p.max_attempts = Number(d.maxAttempts);
  if (given(d.backoffBaseSeconds)) p.backoff_base_seconds = Number(d.backoffBaseSeconds);
  if (given(d.backoffCapSeconds)) p.backoff_cap_seconds = Number(d.backoffCapSeconds);
  if (given(d.timeoutSeconds)) p.timeout_seconds = Number(d.timeoutSeconds);
  return Object.keys(p).length ? p : null;
}

function outboundOf(d: TargetOptionsDraft, stored?: StoredTargetOptions): OutboundHeaders {
  const set = Object.fromEntries(
    d.setHeaders.filter((h) => h.name.trim()).map((h) => [h.name.trim().toLowerCase(), h.value]),
  );
  const remove = d.removeHeaders
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  // Forwarded headers are not edited here: the stored list is kept (the API replaces the object whole).
  return { forward: stored?.outbound_headers.forward ?? [], set, remove };
}

/** The options a create sends (those turned on) or an update sends (those that differ from the stored ones). */
export function targetOptionsChange(d: TargetOptionsDraft, stored?: StoredTargetOptions): TargetOptionsChange {
  const change: TargetOptionsChange = {};
  const unhealthy = given(d.unhealthyAfter) ? Math.round(Number(d.unhealthyAfter) * SPAN[d.unhealthyUnit]) : null;
  if (unhealthy !== (stored?.unhealthy_after_seconds ?? null)) change.unhealthy_after_seconds = unhealthy;
  const policy = policyOf(d);
  if (canonical(policy) !== canonical(stored?.delivery_policy ?? null)) change.delivery_policy = policy;
  const outbound = outboundOf(d, stored);
  const storedOutbound = stored?.outbound_headers ?? { forward: [], set: {}, remove: [] };
  if (canonical(outbound) !== canonical(storedOutbound)) change.outbound_headers = outbound;
  // Text that is not a filter yet is not sent: the editor shows why, and the form waits for it.
  const filter = parseFilterDraft(d);
  if (filter.ok && canonical(filter.filter) !== canonical(stored?.filter ?? null)) change.filter = filter.filter;
  return { ...change, ...transformPacingChange(d, stored) };
}

/**
 * Whether the form can send: a filter that is not JSON yet, or a transform or pacing value the API would refuse, is
 * shown in its section, and nothing is sent until it is fixed.
 */
export const targetDraftSendable = (d: TargetOptionsDraft) =>
  parseFilterDraft(d).ok && Object.keys(transformPacingProblems(d)).length === 0;
