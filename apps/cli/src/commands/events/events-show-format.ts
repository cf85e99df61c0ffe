import type { AnswerOf } from '@relay/client';
import { statusStyle, type Colors } from '../../output/colors';
import { formatTable } from '../../output/table';
import { ago } from '../command-kit';

export type EventDetail = AnswerOf<'/events/{id}', 'get'>;
export type Attempt = AnswerOf<'/events/{id}/attempts', 'get'>['attempts'][number];
type Delivery = EventDetail['deliveries'][number];
/** Destination names by id, when the caller could read the rule's destinations. */
export type DestinationNames = ReadonlyMap<string, string>;

const when = (iso: string | null, now: number) => (iso ? `${iso} (${ago(iso, now)})` : '-');

/** Labelled lines, the labels padded to one width. */
function fields(pairs: [string, string | null | undefined][]): string {
  const shown = pairs.filter((p): p is [string, string] => p[1] !== undefined && p[1] !== null && p[1] !== '');
  const width = Math.max(...shown.map(([label]) => label.length)) + 1;
  return shown.map(([label, value]) => `  ${`${label}:`.padEnd(width + 1)}${value}`).join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

/** The payload as people read it: JSON indented; a payload stored as text (not JSON) exactly as it is. */
export function payloadText(event: Pick<EventDetail, 'payload' | 'payload_as_text'>): string {
  if (event.payload_as_text && typeof event.payload === 'string') return event.payload;
  return JSON.stringify(event.payload, null, 2) ?? 'null';
}

/**
 * One row per destination delivery (routing): each has its own status and attempts, apart from the event's
 * status, which is the primary target's.
 */
export function deliveriesTable(
  deliveries: readonly Delivery[],
  colors: Colors,
  names: DestinationNames = new Map(),
  now = Date.now(),
): string {
  return formatTable(deliveries, [
    { header: 'destination', value: (d) => names.get(d.destination_id) ?? d.destination_id, maxWidth: 36 },
    {
      header: 'status',
      value: (d) => colors[statusStyle(d.status)](d.status === 'failed' && d.acknowledged ? 'failed (ack)' : d.status),
    },
    { header: 'attempts', value: (d) => String(d.attempt_count), align: 'right' },
    { header: 'reason', value: (d) => d.failure_reason ?? '', maxWidth: 24 },
    { header: 'last error', value: (d) => d.last_error ?? '', maxWidth: 40 },
    {
      header: 'when',
      value: (d) =>
        d.delivered_at
          ? `delivered ${ago(d.delivered_at, now)}`
          : d.next_attempt_at && d.status === 'queued'
            ? `next ${d.next_attempt_at}`
            : '',
    },
    { header: 'target', value: (d) => d.target_url, maxWidth: 48 },
  ]);
}

/** `relay events show`: the summary, the destination deliveries, the headers as received, then the payload. */
export function eventDetailText(
  event: EventDetail,
  colors: Colors,
  now = Date.now(),
  names: DestinationNames = new Map(),
): string {
  const status =
    colors[statusStyle(event.status)](event.status) +
    (event.acknowledged ? ` (acknowledged ${ago(event.acknowledged_at, now)})` : '');
  const summary = fields([
    ['source', event.source],
    ['status', status],
    ['attempts', String(event.attempt_count)],
    ['target', event.target_url],
    ['reason', event.failure_reason],
    ['last error', event.last_error],
    ['received', when(event.created_at, now)],
    ['delivered', event.delivered_at ? when(event.delivered_at, now) : undefined],
    ['next attempt', event.next_attempt_at ? when(event.next_attempt_at, now) : undefined],
    ['rule', event.provider_id],
  ]);
  const headerNames = Object.keys(event.headers).sort();
  const headers = headerNames.length
    ? headerNames.map((name) => `  ${colors.cyan(name)}: ${event.headers[name]}`).join('\n')
    : '  (none)';
  const deliveries = event.deliveries.length
    ? [
        '',
        colors.bold(`Deliveries (${event.deliveries.length})`),
        indent(deliveriesTable(event.deliveries, colors, names, now)),
      ]
    : [];
  return [
    colors.bold(`Event ${event.id}`),
    summary,
    ...deliveries,
    '',
    colors.bold('Headers'),
    headers,
    '',
    colors.bold(event.payload_as_text ? 'Payload (stored as text)' : 'Payload'),
    payloadText(event),
  ].join('\n');
}

const outcome = (a: Attempt) => (a.response_status !== null ? String(a.response_status) : a.error ? 'error' : '-');

/** `relay events attempts`: one row per delivery or hook request, in order. */
export function attemptsTable(attempts: readonly Attempt[], colors: Colors, now = Date.now()): string {
  return formatTable(attempts, [
    { header: '#', value: (a) => String(a.attempt_number), align: 'right' },
    { header: 'kind', value: (a) => a.kind },
    {
      header: 'result',
      value: (a) => {
        const ok = a.response_status !== null && a.response_status >= 200 && a.response_status < 300;
        return colors[ok ? 'green' : 'red'](outcome(a));
      },
    },
    { header: 'duration', value: (a) => `${a.duration_ms} ms`, align: 'right' },
    { header: 'target', value: (a) => a.target_url, maxWidth: 48 },
    { header: 'error', value: (a) => a.error ?? '', maxWidth: 40 },
    { header: 'finished', value: (a) => ago(a.finished_at, now) },
  ]);
}
