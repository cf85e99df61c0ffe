import { AppError } from '@relay/core';
import { Router } from 'express';
import { sendProblem } from '../http/problem';

export interface HealthOptions {
  checks: Record<string, () => Promise<void>>;
  isShuttingDown: () => boolean;
  timeoutMs?: number;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** `/health`: the process answers. `/ready`: its dependencies answer and it is not shutting down. */
export function healthRoutes(options: HealthOptions): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    const entries = await Promise.all(
      Object.entries(options.checks).map(async ([name, check]) => {
        try {
          await within(check(), options.timeoutMs ?? 2_000);
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `unavailable: ${(err as Error).message}`] as const;
        }
      }),
    );
    const checks = Object.fromEntries(entries);
    if (options.isShuttingDown())
      return sendProblem(res, new AppError('service_unavailable', 'Shutting down.', { checks }));
    if (entries.some(([, state]) => state !== 'ok')) {
      return sendProblem(res, new AppError('service_unavailable', 'A dependency is unavailable.', { checks }));
    }
    res.json({ status: 'ready', checks });
  });
  return router;
}
