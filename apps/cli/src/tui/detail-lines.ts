// An event's detail as lines (the panel scrolls through them): summary, attempts, headers, payload.
import type { Attempt, EventDetail } from './tui-actions';
import { statusLabel } from './tui-model';

export interface Line {
  text: string;
  tone?: 'red' | 'green' | 'yellow' | 'blue' | 'gray' | 'cyan';
  /** An event status to colour the line by. */
  status?: string;
  bold?: boolean;
}

const attemptLine = (a: Attempt): Line => {
  const outcome = a.response_status !== null ? `HTTP ${a.response_status}` : (a.error ?? 'no answer');
  const ok = a.response_status !== null && a.response_status >= 200 && a.response_status < 300;
  const hook = a.kind === 'hook' ? ' (hook)' : '';
  return {
    text: `  #${a.attempt_number}${hook}  ${outcome}  ${a.duration_ms} ms  ${a.finished_at}  ${a.target_url}`,
    tone: ok ? 'green' : 'red',
  };
};

export function detailLines(event: EventDetail, attempts: Attempt[]): Line[] {
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
  // Attempts first: they are short and say what happened; a payload can run for pages.
  lines.push({ text: '' }, { text: `Attempts (${attempts.length})`, bold: true });
  if (attempts.length === 0) lines.push({ text: '  none yet', tone: 'gray' });
  lines.push(...attempts.map(attemptLine));
  lines.push({ text: '' }, { text: 'Headers', bold: true });
  for (const [name, value] of Object.entries(event.headers)) lines.push({ text: `  ${name}: ${value}`, tone: 'gray' });
  lines.push({ text: '' }, { text: event.payload_as_text ? 'Payload (stored text)' : 'Payload', bold: true });
  const payload = event.payload_as_text ? String(event.payload) : JSON.stringify(event.payload, null, 2);
  for (const line of payload.split('\n')) lines.push({ text: `  ${line}` });
  return lines;
}
