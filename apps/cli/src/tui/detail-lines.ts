// An event's detail as lines (the panel scrolls through them): summary, deliveries, attempts, headers, payload.
import type { Attempt, Detail, EventDetail } from './tui-actions';
import { statusLabel } from './tui-model';

export interface Line {
  text: string;
  tone?: 'red' | 'green' | 'yellow' | 'blue' | 'gray' | 'cyan';
  /** An event status to colour the line by. */
  status?: string;
  bold?: boolean;
}

type Delivery = EventDetail['deliveries'][number];
type Names = Detail['names'];

const destinationName = (id: string, names: Names) => names.get(id) ?? id.slice(0, 8);

const attemptLine = (a: Attempt, names: Names): Line => {
  const outcome = a.response_status !== null ? `HTTP ${a.response_status}` : (a.error ?? 'no answer');
  const ok = a.response_status !== null && a.response_status >= 200 && a.response_status < 300;
  const kind =
    a.kind === 'hook' ? ' (hook)' : a.destination_id ? ` (→ ${destinationName(a.destination_id, names)})` : '';
  return {
    text: `  #${a.attempt_number}${kind}  ${outcome}  ${a.duration_ms} ms  ${a.finished_at}  ${a.target_url}`,
    tone: ok ? 'green' : 'red',
  };
};

/** One destination delivery: its own status and attempts (the event's status is the primary target's). */
const deliveryLine = (d: Delivery, names: Names): Line => {
  const why = [d.failure_reason, d.last_error].filter(Boolean).join(': ');
  const attempts = `${d.attempt_count} attempt${d.attempt_count === 1 ? '' : 's'}`;
  return {
    text: `  ${destinationName(d.destination_id, names)}  ${statusLabel(d)}  ${attempts}${why ? `  ${why}` : ''}  ${d.target_url}`,
    status: d.status,
  };
};

export function detailLines({ event, attempts, names }: Detail): Line[] {
  const lines: Line[] = [
    { text: `Event ${event.id}`, bold: true },
    { text: `  status:   ${statusLabel(event)}`, status: event.status },
    { text: `  source:   ${event.source}` },
    { text: `  received: ${event.created_at}` },
    { text: `  target:   ${event.target_url ?? '-'}` },
    { text: `  attempts: ${event.attempt_count}` },
  ];
  if (event.failure_reason) lines.push({ text: `  failure:  ${event.failure_reason}`, tone: 'red' });
  if (event.last_error) lines.push({ text: `  error:    ${event.last_error}`, tone: 'red' });
  // Deliveries and attempts first: they are short and say what happened; a payload can run for pages.
  if (event.deliveries.length) {
    lines.push({ text: '' }, { text: `Deliveries (${event.deliveries.length})`, bold: true });
    lines.push(...event.deliveries.map((d) => deliveryLine(d, names)));
  }
  lines.push({ text: '' }, { text: `Attempts (${attempts.length})`, bold: true });
  if (attempts.length === 0) lines.push({ text: '  none yet', tone: 'gray' });
  lines.push(...attempts.map((a) => attemptLine(a, names)));
  lines.push({ text: '' }, { text: 'Headers', bold: true });
  for (const [name, value] of Object.entries(event.headers)) lines.push({ text: `  ${name}: ${value}`, tone: 'gray' });
  lines.push({ text: '' }, { text: event.payload_as_text ? 'Payload (stored text)' : 'Payload', bold: true });
  const payload = event.payload_as_text ? String(event.payload) : JSON.stringify(event.payload, null, 2);
  for (const line of payload.split('\n')) lines.push({ text: `  ${line}` });
  return lines;
}
