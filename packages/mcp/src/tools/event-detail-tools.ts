import { ProblemError, problemOf } from '@relay/client';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';
import { PAYLOAD_PREVIEW_CHARS } from '../truncate';
import { eventDetailShape, fetchEventDetail } from './event-views';

const getEvent = defineTool({
  name: 'get_event',
  title: 'Get an event',
  description:
    'One event: its status, attempts count, failure reason, last error, target, headers (credentials masked) ' +
    `and the first ${PAYLOAD_PREVIEW_CHARS} characters of its JSON payload. When payload_truncated is true, ` +
    'get_event_payload returns the whole payload in pieces.',
  operation: 'GET /events/{id}',
  input: { id: z.uuid().describe('The event id, from list_events.') },
  output: eventDetailShape,
  annotations: { readOnlyHint: true, idempotentHint: true },
  run: ({ id }, ctx) => fetchEventDetail(ctx, id),
});

/** Most characters one get_event_payload call returns: a 1 MB payload takes about ten calls. */
export const PAYLOAD_PAGE_CHARS = 100_000;

/** The end of a piece from `offset` of at most `max` characters that does not split a surrogate pair. */
function pieceEnd(text: string, offset: number, max: number): number {
  const end = Math.min(text.length, offset + max);
  if (end < text.length && end > offset + 1) {
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) return end - 1;
  }
  return end;
}

const getEventPayload = defineTool({
  name: 'get_event_payload',
  title: 'Get the full payload of an event',
  description:
    'The payload of one event exactly as it was received (the raw JSON text, not re-formatted), in pieces of at ' +
    `most max_chars characters (default and maximum ${PAYLOAD_PAGE_CHARS}). Start at offset 0 and call again ` +
    'with offset = next_offset until next_offset is null; the pieces joined in order are the whole payload. ' +
    'Use it when get_event says the payload was truncated and the rest matters. Offsets count characters ' +
    '(UTF-16 code units), not bytes.',
  operation: 'GET /events/{id}/body',
  input: {
    id: z.uuid().describe('The event id.'),
    offset: z.number().int().min(0).optional().describe('Where the piece starts, in characters (default 0).'),
    max_chars: z
      .number()
      .int()
      .min(1)
      .max(PAYLOAD_PAGE_CHARS)
      .optional()
      .describe(`Most characters to return (default and maximum ${PAYLOAD_PAGE_CHARS}).`),
  },
  output: {
    id: z.string(),
    link: z.string(),
    content_type: z.string().describe('The Content-Type the webhook was sent with.'),
    text: z.string().describe('This piece of the payload.'),
    offset: z.number(),
    next_offset: z.number().nullable().describe('Pass as offset for the next piece; null when this is the last.'),
    total_chars: z.number().describe('Length of the whole payload, in characters.'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ id, offset = 0, max_chars = PAYLOAD_PAGE_CHARS }, { client, link }) {
    // The stored bytes are served as an attachment under their own content type; read as text, not parsed.
    const { data, error, response } = await client.GET('/events/{id}/body', {
      params: { path: { id } },
      parseAs: 'text',
    });
    if (!response.ok) throw await problemOf(response, error);
    const text = data as unknown as string;
    if (offset > text.length)
      throw new ProblemError({
        title: 'Offset past the end',
        status: 400,
        code: 'offset_out_of_range',
        detail: `offset ${offset} is past the end of the payload (${text.length} characters).`,
      });
    const end = pieceEnd(text, offset, max_chars);
    return {
      id,
      link: link(`/events/${id}`),
      content_type: response.headers.get('content-type') ?? 'application/json',
      text: text.slice(offset, end),
      offset,
      next_offset: end < text.length ? end : null,
      total_chars: text.length,
    };
  },
});

export const EVENT_DETAIL_TOOLS: readonly AnyRelayTool[] = [getEvent, getEventPayload];
