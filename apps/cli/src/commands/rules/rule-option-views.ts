import type { AnswerOf } from '@relay/client';

// The rule options (docs/rules.md) as `relay rules show` prints them: "-" when off, secrets only as set or not.

type Rule = AnswerOf<'/rules/{id}', 'get'>;

/** 86400 → "24h", 90 → "90s", 172800 → "2d": the largest unit that divides evenly. */
export function formatSeconds(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const)
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

const keyOf = (key: { preset?: string; header?: string; json_pointer?: string }) =>
  key.preset ? `${key.preset} preset` : key.header ? `header ${key.header}` : `JSON pointer ${key.json_pointer ?? ''}`;

function verificationText(v: NonNullable<Rule['verification']>): string {
  if (v.preset !== 'hmac')
    return `${v.preset}${v.tolerance_seconds ? `, tolerance ${formatSeconds(v.tolerance_seconds)}` : ''}`;
  const prefix = v.prefix ? `, prefix ${v.prefix}` : '';
  return `hmac ${v.algorithm ?? 'sha256'} ${v.encoding ?? 'hex'} in ${v.header ?? '?'}${prefix}`;
}

export function policyText(p: Rule['delivery_policy']): string {
  if (!p) return '- (install-wide settings)';
  const parts = [
    p.max_attempts === undefined ? '' : `${p.max_attempts} attempts`,
    p.backoff_base_seconds === undefined ? '' : `backoff from ${formatSeconds(p.backoff_base_seconds)}`,
    p.backoff_cap_seconds === undefined ? '' : `up to ${formatSeconds(p.backoff_cap_seconds)}`,
    p.timeout_seconds === undefined ? '' : `timeout ${formatSeconds(p.timeout_seconds)}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : '- (install-wide settings)';
}

const orderingText = (o: NonNullable<Rule['ordering']>) =>
  o.header === undefined && o.json_pointer === undefined ? 'whole source' : keyOf(o);

/** A CEL filter as its expression, any other as compact JSON. */
export function filterText(filter: Rule['filter']): string {
  if (!filter) return '- (every webhook goes)';
  return Object.keys(filter).length === 1 && typeof filter.cel === 'string'
    ? `cel: ${filter.cel}`
    : JSON.stringify(filter);
}

type TransformPacing = Pick<
  Rule,
  'transform' | 'has_transform' | 'forward_path_query' | 'rate_limit' | 'max_concurrency' | 'pacing_state'
>;

/** The pacing state one rule's or destination's read carries (docs/rules.md "Pacing"), in one line. */
export function pacingStateText(s: NonNullable<Rule['pacing_state']>, rate: Rule['rate_limit']): string {
  const parts: string[] = [];
  if (s.effective_limit !== null && s.period !== null) {
    const halved = rate && s.effective_limit < rate.limit ? ` (halved after a 429; configured ${rate.limit})` : '';
    parts.push(`${s.effective_limit}/${s.period} in force${halved}`);
  }
  parts.push(`${s.in_flight} in flight`, `${s.waiting} waiting`);
  if (s.held_until) parts.push(`held until ${s.held_until} (Retry-After)`);
  return parts.join(', ');
}

const rateText = (r: NonNullable<Rule['rate_limit']>) =>
  `${r.limit}/${r.period}, burst ${r.burst ?? r.limit}${r.burst === undefined ? ' (the limit)' : ''}`;

/** A rule's or destination's transform (its size, not its code: --json has that) and pacing, for `formatFields`. */
export function transformPacingFields(t: TransformPacing): [string, string][] {
  const code = t.transform;
  const size = code ? ` (${code.split('\n').length} lines; --json shows the code)` : '';
  return [
    ['transform', t.has_transform ? `set${size}` : '- (webhooks go as received)'],
    ['forward path/query', t.forward_path_query ? "yes (the transform's path and query)" : 'no'],
    ['rate limit', t.rate_limit ? rateText(t.rate_limit) : '-'],
    ['max concurrency', t.max_concurrency === null ? '-' : String(t.max_concurrency)],
    // Only a read of one rule or destination carries it, and only when paced or held.
    ...(t.pacing_state ? [['pacing now', pacingStateText(t.pacing_state, t.rate_limit)] as [string, string]] : []),
  ];
}

/** Label/value lines for `formatFields`. */
export function ruleOptionFields(rule: Rule): [string, string][] {
  const fields: [string, string][] = [
    ['filter', filterText(rule.filter)],
    ['dedup', rule.dedup ? `${keyOf(rule.dedup)}, window ${formatSeconds(rule.dedup.window_seconds)}` : '-'],
    ['duplicates', String(rule.duplicate_count)],
    ['verification', rule.verification ? verificationText(rule.verification) : '-'],
    ['verification secret', rule.has_verification_secret ? 'set (never shown)' : 'none'],
  ];
  if (rule.previous_verification_secret_expires_at)
    fields.push(['previous', `also accepted until ${rule.previous_verification_secret_expires_at}`]);
  const failures = rule.signature_failures;
  fields.push(
    ['signature failures', failures.count ? `${failures.count}, last ${failures.last_at ?? '-'}` : '0'],
    [
      'unhealthy after',
      rule.health.unhealthy_after_seconds ? formatSeconds(rule.health.unhealthy_after_seconds) : '- (default)',
    ],
    ['ordering', rule.ordering ? orderingText(rule.ordering) : '-'],
    ['delivery policy', policyText(rule.delivery_policy)],
    [
      'set headers',
      Object.entries(rule.outbound_headers.set)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || '-',
    ],
    ['removed headers', rule.outbound_headers.remove.join(', ') || '-'],
    ...transformPacingFields(rule),
  );
  return fields;
}
