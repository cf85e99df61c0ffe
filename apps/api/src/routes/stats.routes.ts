import type { StatsRepository } from '@relay/db';
import { Router } from 'express';
import { accessFor } from '../legacy-access-table';
import { guard, principalOf } from '../auth/guard';
import { validate } from '../http/validate';
import { deliveryStats } from '../stats/delivery-stats';
import { statsQuery } from './stats.contract';

export interface StatsRouteDeps {
  stats: StatsRepository;
  now?: () => Date;
}

export function statsRoutes(deps: StatsRouteDeps): Router {
  const router = Router();
  const now = deps.now ?? (() => new Date());
  router.get('/stats', guard(accessFor('GET /stats')), async (req, res) => {
    res.json(await deliveryStats(deps.stats, principalOf(req).orgId, validate(statsQuery, req.query), now()));
  });
  return router;
}
