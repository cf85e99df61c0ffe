import {
  AppError,
  isValidSource,
  sourceFromPath,
  storableHeaders,
  checkTargetUrl,
  type TargetPolicy,
} from '@relay/core';
import { Router, type Request } from 'express';
import type { IngestService } from '../ingest/ingest.service';
import type { HostResolver } from '../platform/host-resolver';
import { readJsonBody } from '../ingest/read-json-body';

export interface IngestRouteOptions {
  ingest: IngestService;
  maxBodyBytes: number;
  defaultSource: string;
  allowTargetOverride: boolean;
  targetPolicy: TargetPolicy;
  /** The organization of the Host the webhook was sent to (refuses unknown hosts and suspended organizations). */
  organizationOf: HostResolver;
}

// First path segments that belong to the relay's own API; webhooks cannot use them as sources.
export const RESERVED_PATH_SEGMENTS = new Set([
  'api',
  'events',
  'rules',
  'config',
  'stats',
  'health',
  'ready',
  'docs',
  'openapi.json',
]);

function sourceOf(req: Request, defaultSource: string): string {
  const fromPath = sourceFromPath(req.path);
  if (fromPath !== undefined && RESERVED_PATH_SEGMENTS.has(fromPath.toLowerCase())) {
    throw new AppError('not_found', `No route for POST ${req.path}.`);
  }
  const header = req.get('x-webhook-source');
  const source = header !== undefined && header.trim() !== '' ? header.trim() : (fromPath ?? defaultSource);
  if (!isValidSource(source)) {
    throw new AppError(
      'invalid_source',
      'A source is 1-64 characters: letters, digits, ".", "_" and "-", starting with a letter or digit.',
      { source },
    );
  }
  return source;
}

function targetOverrideOf(req: Request, options: IngestRouteOptions): string | undefined {
  const header = req.get('x-target-url');
  if (header === undefined) return undefined;
  if (!options.allowTargetOverride) {
    throw new AppError(
      'target_override_disabled',
      'X-Target-Url is refused on public ingest (ALLOW_PUBLIC_TARGET_OVERRIDE is not true).',
    );
  }
  const check = checkTargetUrl(header.trim(), options.targetPolicy);
  if (!check.ok) throw new AppError('target_url_rejected', check.message, { reason: check.reason });
  return check.url.toString();
}

/** Public ingest: POST / and POST /{source}/... with a JSON body, no credentials. */
export function ingestRoutes(options: IngestRouteOptions): Router {
  const router = Router();
  router.post('/{*path}', async (req, res) => {
    const orgId = await options.organizationOf(req.hostname ?? '');
    const source = sourceOf(req, options.defaultSource);
    const targetOverride = targetOverrideOf(req, options);
    const body = await readJsonBody(req, options.maxBodyBytes);
    const id = await options.ingest.accept({
      orgId,
      source,
      body,
      headers: storableHeaders(req.headers),
      ...(targetOverride !== undefined ? { targetOverride } : {}),
    });
    res.status(202).json({ id, status: 'queued' });
  });
  return router;
}
