import { organizationExportLineSchema, uuidParam } from '@relay/contracts';
import type { Response } from 'express';
import { defineOperation } from '../../composition/define-operation';

const common = { tag: 'platform', access: 'operator', notFound: 'No such organization.' } as const;

/** Resolves when the response can take more, or is gone; leaves no listener behind. */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes the lines as the client reads them: when the socket's buffer is full (`write` answers false)
 * the next page is not read until it drains, so a slow client holds one page, never the whole export.
 * A client that goes away stops the walk.
 */
async function streamLines(res: Response, lines: AsyncIterable<string>): Promise<void> {
  try {
    for await (const line of lines) {
      if (res.destroyed) return;
      if (!res.write(line)) await drainedOrClosed(res);
    }
    res.end();
  } catch (err) {
    // Past the headers no problem document can be sent: a cut connection (no final chunk) tells the
    // client the export is incomplete, where a clean end would not.
    res.destroy(err as Error);
  }
}

// Offboarding an organization: platform operators' sessions only (as the rest of /api/platform).
export const organizationOffboardingOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/platform/organizations/:id/export',
    summary: "Export the organization's events (NDJSON)",
    description:
      'Every event of the organization, oldest first, one JSON object per line (`application/x-ndjson`): ' +
      'source, status, headers (credentials masked), the body as stored (text, or base64 when it is not UTF-8) ' +
      'and a summary of its attempts. Streamed page by page; the export is recorded in the platform audit log. ' +
      'A connection cut before the final chunk means the export is incomplete.',
    params: uuidParam,
    responses: {
      200: {
        description: 'One line per event; the schema is that of one line.',
        contentType: 'application/x-ndjson',
        schema: organizationExportLineSchema,
      },
    },
    handler: async ({ services, operator, params, res }) => {
      const lines = await services.offboarding.exportEvents(operator, params.id);
      res.status(200).set({
        'Content-Type': 'application/x-ndjson; charset=utf-8',
        'Content-Disposition': `attachment; filename="organization-${params.id}.ndjson"`,
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      await streamLines(res, lines);
      return undefined;
    },
  }),
  defineOperation({
    ...common,
    method: 'delete',
    path: '/api/platform/organizations/:id',
    summary: 'Delete the organization and all of its data',
    description:
      'Synchronous and batched: ingest stops (the subscription becomes `canceled`), events go in batches of 1,000 ' +
      'with their attempts, then the organization audit log, rules and hooks, users and their tokens, API keys, ' +
      'domains and the organization itself, recorded in the platform audit log (which stays). Refused while the ' +
      'organization has an active custom domain. An interrupted deletion is finished by calling it again. ' +
      "Jobs still queued for the organization's events are skipped by the workers.",
    params: uuidParam,
    responses: {
      204: { description: 'Deleted.' },
      409: {
        description:
          'It still has an active custom domain (`organization_has_domains`), or it is the default ' +
          'organization (`organization_is_default`).',
      },
    },
    handler: async ({ services, operator, params }) => {
      await services.offboarding.deleteOrganization(operator, params.id);
      return { status: 204 };
    },
  }),
];
