import { performance } from 'node:perf_hooks';
import type { RequestHandler, Response } from 'express';
import type { ApiMetrics } from './api-metrics';

/** What ingest leaves on `res.locals` for its metrics (problem.ts sets the code, the ingest handler the organization). */
export interface IngestLocals {
  ingestStartedAt?: number;
  problemCode?: string;
  organizationId?: string;
}

/**
 * Counts every answer of the ingest route in one place, accepted or refused, whatever refused it
 * (the service, a limit, the body checks, the error handler): the reason is the problem document's
 * `code`, which sendProblem leaves on `res.locals`, so a new refusal code is counted without an edit here.
 */
export function instrumentIngest(handler: RequestHandler, metrics: ApiMetrics): RequestHandler {
  // One function for every request (`this` is the response): nothing allocated per webhook but the listener slot.
  function answered(this: Response): void {
    const locals = this.locals as IngestLocals;
    const seconds = (performance.now() - (locals.ingestStartedAt ?? 0)) / 1000;
    metrics.ingestAnswered(this.statusCode, locals.problemCode, seconds, locals.organizationId);
  }
  return (req, res, next) => {
    // Only a POST is a webhook: app.ts also mounts ingest last, where every request no route claimed passes
    // (GET /favicon.ico, /robots.txt); those 404s are no refused webhooks.
    if (req.method !== 'POST') return next();
    const locals = res.locals as IngestLocals;
    if (locals.ingestStartedAt === undefined) {
      locals.ingestStartedAt = performance.now();
      res.on('finish', answered);
    }
    return handler(req, res, next);
  };
}
