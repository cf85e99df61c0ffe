import { AppError } from '@relay/core';
import { deliveryQueuePrefix, hookQueuePrefix, maintenanceQueuePrefix, QUEUES } from '@relay/queue';
import { Queue } from 'bullmq';
import { Router, type RequestHandler } from 'express';
import type { RedisConnection } from '@relay/queue';
import { operatorOnly } from '../../auth/guard';

/** Where the queue view lives; `admin` is a reserved first path segment (no webhook source may use it). */
export const QUEUE_VIEW_PATH = '/admin/queues';

// Only reads pass: bull-board's API has action routes (retry, promote, clean, add, pause, obliterate…)
// that would move jobs behind the event state machine's back and outside the audit log. readOnlyMode
// hides them in the UI; this refuses them on the wire, whoever asks.
const readOnly: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  res.setHeader('Allow', 'GET, HEAD');
  next(
    new AppError(
      'method_not_allowed',
      'The queue view is read-only: retry, acknowledge or delete events through the API or the dashboard.',
    ),
  );
};

// The page is a small React app of bull-board's, served with its own inline config script; it must not
// be framed or cached on a shared proxy (it shows job data of every organization).
const pageHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'private, no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
};

export interface QueueView {
  /** Mounted at QUEUE_VIEW_PATH behind credential resolution (app.ts). */
  router: Router;
  close(): Promise<void>;
}

/**
 * bull-board over every queue of the job catalog, read-only, for platform operators' sessions: a tenant
 * admin is refused (403), a caller without credentials too (401, a problem document like the API's).
 */
export function createQueueView(options: { connection: RedisConnection; prefix: string; shards?: number }): QueueView {
  const shards = options.shards ?? 1;
  // Each shard of the delivery and hook queues is listed on its own (`shard2-deliveries`); one shard keeps the plain
  // names. The maintenance queue is never sharded.
  const listed = [
    ...Array.from({ length: shards }, (_, shard) => [
      { name: QUEUES.delivery, shard, prefix: deliveryQueuePrefix(options.prefix, shard) },
      { name: QUEUES.hooks, shard, prefix: hookQueuePrefix(options.prefix, shard) },
    ]).flat(),
    { name: QUEUES.maintenance, shard: 0, prefix: maintenanceQueuePrefix(options.prefix) },
  ];
  let queues: Queue[] = [];
  // bull-board is loaded, and the queues it reads opened, at the first request an operator makes to the view, not at
  // the api's start: ~3 MB of heap (docs/performance.md) that an install whose operators never open it never pays.
  let board: Promise<RequestHandler> | undefined;
  const makeBoard = async (): Promise<RequestHandler> => {
    const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
      import('@bull-board/express'),
    ]);
    queues = listed.map(({ name, prefix }) => {
      const queue = new Queue(name, { connection: options.connection, prefix });
      // Errors are the shared connection's, which redis-connection.ts already absorbs.
      queue.on('error', () => {});
      return queue;
    });
    const serverAdapter = new ExpressAdapter().setBasePath(QUEUE_VIEW_PATH);
    createBullBoard({
      queues: queues.map(
        (queue, i) =>
          new BullMQAdapter(queue, {
            readOnlyMode: true,
            allowRetries: false,
            prefix: shards > 1 && listed[i]!.name !== QUEUES.maintenance ? `shard${listed[i]!.shard}-` : '',
          }),
      ),
      serverAdapter,
      options: { uiConfig: { boardTitle: 'Relay queues' } },
    });
    return serverAdapter.getRouter() as RequestHandler;
  };
  const lazyBoard: RequestHandler = async (req, res, next) => {
    // A failed load is not kept: the next request tries again.
    board ??= makeBoard().catch((err: unknown) => {
      board = undefined;
      throw err;
    });
    (await board)(req, res, next);
  };
  const router = Router();
  router.use(readOnly, operatorOnly, pageHeaders, lazyBoard);
  return {
    router,
    close: async () => {
      // A view opened by no request has no queues; one opening now has them once its load ends.
      await board?.catch(() => {});
      await Promise.all(queues.map((queue) => queue.close().catch(() => {})));
    },
  };
}
