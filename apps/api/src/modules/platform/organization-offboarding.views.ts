import { isUtf8 } from 'node:buffer';
import { maskedHeaders } from '@relay/core';
import type { organizationExportLineSchema } from '@relay/contracts';
import type { ExportedEvent } from '@relay/db';
import type { z } from 'zod';
import { isoOrNull as iso } from '../../http/timestamps';
import { summaryView } from '../events/event.views';

/** One line of the export: the event as the events API shows it, with its body as stored (not parsed). */
export function exportLineView(
  e: ExportedEvent,
  sensitiveHeaders: readonly string[],
): z.output<typeof organizationExportLineSchema> {
  // Ingest stores only UTF-8, but rows written before that check (or by hand) may not be: base64 keeps them exact.
  const utf8 = isUtf8(e.body);
  return {
    ...summaryView(e, e.deliveryCounts),
    // The sender's credentials are stored for forwarding, never shown (as in GET /events/:id).
    headers: maskedHeaders(e.headers, sensitiveHeaders),
    body: e.body.toString(utf8 ? 'utf8' : 'base64'),
    body_encoding: utf8 ? 'utf8' : 'base64',
    last_error: e.lastError,
    attempts: {
      main: e.mainAttempts,
      hook: e.hookAttempts,
      last_response_status: e.lastResponseStatus,
      last_finished_at: iso(e.lastFinishedAt),
    },
  };
}
