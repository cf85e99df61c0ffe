import type { AnswerOf } from '@relay/client';
import { statusStyle, type Colors } from '../../output/colors';
import { formatTable } from '../../output/table';
import { ago } from '../command-kit';

export type EventDetail = AnswerOf<'/events/{id}', 'get'>;
export type Attempt = AnswerOf<'/events/{id}/attempts', 'get'>['attempts'][number];

const when = (iso: string | null, now: number) => (iso ? `${iso} (${ago(iso, now)})` : '-');

/** Labelled lines, the labels padded to one width. */
function fields(pairs: [string, string | null | undefined][]): string {
  const shown = pairs.filter((p): p is [string, string] => p[1] !== undefined && p[1] !== null && p[1] !== '');
  const width = Math.max(...shown.map(([label]) => label.length)) + 1;
  return shown.map(([label, value]) => `  ${`${label}:`.padEnd(width + 1)}${value}`).join('\n');
}

/** The payload as people read it: JSON indented; a payload stored as text (not JSON) exactly as it is. */
export function payloadText(event: Pick<EventDetail, 'payload' | 'payload_as_text'>): string {
  if (event.payload_as_text && typeof event.payload === 'string') return event.payload;
  return JSON.stringify(event.payload, null, 2) ?? 'null';
}

/** `relay events show`: the summary, the headers as received, then the payload. */
export function eventDetailText(event: EventDetail, colors: Colors, now = Date.now()): string {
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
  return [
    colors.bold(`Event ${event.id}`),
    summary,
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
