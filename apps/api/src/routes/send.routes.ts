import { Router } from 'express';
import { accessFor } from '../legacy-access-table';
import { guard, principalOf } from '../auth/guard';
import { validate } from '../http/validate';
import { sendWebhook, type SendDeps } from '../send/send-webhook';
import { sendSchema } from './send.contract';

export function sendRoutes(deps: SendDeps): Router {
  const router = Router();
  router.post('/api/send', guard(accessFor('POST /api/send')), async (req, res) => {
    res.status(202).json(await sendWebhook(deps, principalOf(req), validate(sendSchema, req.body)));
  });
  return router;
}
