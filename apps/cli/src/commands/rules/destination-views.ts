import type { AnswerOf } from '@relay/client';
import type { Colors } from '../../output/colors';
import { formatTable } from '../../output/table';
import { formatFields, type BodyOf } from '../admin-kit';
import { ago } from '../command-kit';
import { healthText } from './rule-health-view';
import { filterText, formatSeconds, policyText, transformPacingFields } from './rule-option-views';
import { signingText } from './rule-views';

// A rule's destinations (docs/routing.md) as `relay rules destinations` prints them.

export type Destination = AnswerOf<'/rules/{id}/destinations/{destinationId}', 'get'>;
export type DestinationCreateBody = BodyOf<'postRulesIdDestinations'>;
export type DestinationUpdateBody = BodyOf<'patchRulesIdDestinationsDestinationId'>;

const stateText = (d: Destination, colors: Colors) => {
  if (!d.active) return colors.gray('inactive');
  return d.health.status === 'healthy' ? colors.green('active') : colors.red('unhealthy');
};

export function destinationsTable(destinations: readonly Destination[], colors: Colors): string {
  if (destinations.length === 0)
    return 'No destinations on this rule: add one with `relay rules destinations add <rule-id> --target …`.';
  return formatTable(destinations, [
    { header: 'id', value: (d) => d.id },
    { header: 'name', value: (d) => d.name, maxWidth: 32 },
    { header: 'target', value: (d) => d.target_url, maxWidth: 60 },
    { header: 'state', value: (d) => stateText(d, colors) },
    { header: 'filter', value: (d) => (d.filter ? filterText(d.filter) : '-'), maxWidth: 40 },
    { header: 'signing', value: (d) => d.signing },
  ]);
}

export function destinationDetail(d: Destination, colors: Colors): string {
  const waiting = 'deliveries pause until `relay rules destinations resume`';
  const span = d.health.unhealthy_after_seconds;
  return formatFields([
    ['id', d.id],
    ['name', d.name],
    ['rule', d.rule_id],
    ['target', d.target_url],
    ['state', d.active ? colors.green('active') : colors.gray('inactive')],
    ['health', healthText(d.health, colors, waiting)],
    ['description', d.description ?? '-'],
    ['filter', filterText(d.filter)],
    ['signing', signingText(d.signing)],
    ['unhealthy after', span ? formatSeconds(span) : '- (default)'],
    ['delivery policy', policyText(d.delivery_policy)],
    ['forwards', d.outbound_headers.forward.join(', ') || '-'],
    [
      'set headers',
      Object.entries(d.outbound_headers.set)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || '-',
    ],
    ['removed headers', d.outbound_headers.remove.join(', ') || '-'],
    ...transformPacingFields(d),
    ['created', `${d.created_at} (${ago(d.created_at)})`],
    ['updated', `${d.updated_at} (${ago(d.updated_at)})`],
  ]);
}
