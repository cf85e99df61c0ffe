import { Card, SimpleGrid, Text, Title } from '@mantine/core';
import { filterSummary } from './filter-draft';
import type { DeliveryPolicy, Rule } from './rule-types';
import { pacingStateText, pacingSummary } from './transform-pacing-draft';

// The rule options read-only on the rule page: "off" for each one not set, secrets only as set or not set.

const span = (seconds: number) =>
  seconds % 86_400 === 0
    ? `${seconds / 86_400} d`
    : seconds % 3_600 === 0
      ? `${seconds / 3_600} h`
      : seconds % 60 === 0
        ? `${seconds / 60} min`
        : `${seconds} s`;

const keyText = (key: { preset?: string; header?: string; json_pointer?: string }) =>
  key.preset ? `${key.preset} preset` : key.header ? `header ${key.header}` : `JSON pointer ${key.json_pointer ?? ''}`;

function verificationText(rule: Rule): string {
  const v = rule.verification;
  if (!v) return 'off';
  if (v.preset !== 'hmac')
    return v.tolerance_seconds ? `${v.preset}, tolerance ${span(v.tolerance_seconds)}` : v.preset;
  const prefix = v.prefix ? ` after "${v.prefix}"` : '';
  return `HMAC ${v.algorithm ?? 'sha256'} ${v.encoding ?? 'hex'} in ${v.header ?? '?'}${prefix}`;
}

function policyText(p: DeliveryPolicy | null): string {
  const parts = [
    p?.max_attempts === undefined ? '' : `${p.max_attempts} attempts`,
    p?.backoff_base_seconds === undefined ? '' : `backoff from ${span(p.backoff_base_seconds)}`,
    p?.backoff_cap_seconds === undefined ? '' : `up to ${span(p.backoff_cap_seconds)}`,
    p?.timeout_seconds === undefined ? '' : `timeout ${span(p.timeout_seconds)}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'install-wide settings';
}

const orderingText = (o: Rule['ordering']) =>
  !o ? 'off' : o.header === undefined && o.json_pointer === undefined ? 'whole source, one at a time' : keyText(o);

const filterText = (filter: Rule['filter']): string => (filter ? filterSummary(filter) : 'none: every webhook goes');

function Row({ label, children }: { label: string; children: string }) {
  return (
    <>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm">{children}</Text>
    </>
  );
}

/** Whether a transform is set (its code is in the edit form) and whether its path and query are forwarded. */
export const transformText = (t: { has_transform: boolean; forward_path_query: boolean }) =>
  (t.has_transform ? 'set' : 'none') + (t.forward_path_query ? '; forwards its path and query' : '');

/**
 * Filter, deduplication, verification (with its failures), health threshold, ordering, policy, outbound headers,
 * transform and pacing.
 */
export function RuleOptionsCard({ rule }: { rule: Rule }) {
  const failures = rule.signature_failures;
  const set = Object.entries(rule.outbound_headers.set);
  const previous = rule.previous_verification_secret_expires_at;
  return (
    <Card withBorder aria-label="Rule options">
      <Title order={4} mb="xs">
        Options
      </Title>
      <SimpleGrid cols={2} spacing="xs" verticalSpacing={4} style={{ gridTemplateColumns: 'max-content 1fr' }}>
        <Row label="Filter">{filterText(rule.filter)}</Row>
        <Row label="Deduplication">
          {rule.dedup ? `${keyText(rule.dedup)}, window ${span(rule.dedup.window_seconds)}` : 'off'}
        </Row>
        <Row label="Duplicates answered">{String(rule.duplicate_count)}</Row>
        <Row label="Inbound verification">{verificationText(rule)}</Row>
        <Row label="Verification secret">
          {(rule.has_verification_secret ? 'set' : 'not set') +
            (previous ? `; the replaced one is accepted until ${new Date(previous).toLocaleString()}` : '')}
        </Row>
        <Row label="Signature failures">
          {failures.count
            ? `${failures.count}, last ${failures.last_at ? new Date(failures.last_at).toLocaleString() : '-'}`
            : '0'}
        </Row>
        <Row label="Unhealthy after">
          {rule.health.unhealthy_after_seconds ? span(rule.health.unhealthy_after_seconds) : 'install default'}
        </Row>
        <Row label="Ordering">{orderingText(rule.ordering)}</Row>
        <Row label="Delivery policy">{policyText(rule.delivery_policy)}</Row>
        <Row label="Set headers">{set.length ? set.map(([k, v]) => `${k}: ${v}`).join(', ') : 'none'}</Row>
        <Row label="Removed headers">{rule.outbound_headers.remove.join(', ') || 'none'}</Row>
        <Row label="Transform">{transformText(rule)}</Row>
        <Row label="Pacing">{pacingSummary(rule) || 'off'}</Row>
        <Row label="Pacing now">{pacingStateText(rule.pacing_state)}</Row>
      </SimpleGrid>
    </Card>
  );
}
