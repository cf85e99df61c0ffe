import { checkTargetUrl, openSecret, type SecretKeyring, type TargetPolicy } from '@relay/core';
import type { NotificationRepository } from '@relay/db';
import type { NoticeJobData } from '@relay/queue';
import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Sender } from '../sender';
import { noticeBody, noticeHeaders } from './notice-request';

export interface NoticeProcessorDeps {
  notifications: Pick<NotificationRepository, 'target'>;
  /** The deliveries' sender: the same target policy on every dialled address, the same proxy. */
  sender: Sender;
  targetPolicy: TargetPolicy;
  /** Signs notices of organizations without a secret of their own; unset: such notices go unsigned. */
  defaultSecret: string | undefined;
  keys: SecretKeyring | undefined;
  logger: Logger;
  now?: () => number;
}

export type NoticeResult = 'sent' | 'skipped';

// One notice to its organization's notification URL, read when it is sent (a URL changed or removed
// meanwhile wins). A failure throws: BullMQ retries with backoff (NOTIFICATION_MAX_ATTEMPTS); a URL the
// target policy refuses is not retried.
export function createNoticeProcessor(deps: NoticeProcessorDeps) {
  const now = deps.now ?? Date.now;
  return async (job: Job<NoticeJobData>): Promise<NoticeResult> => {
    const notice = job.data;
    const target = await deps.notifications.target(notice.orgId);
    if (!target?.url) return 'skipped';
    const check = checkTargetUrl(target.url, deps.targetPolicy);
    if (!check.ok) throw new UnrecoverableError(`notification URL refused: ${check.message}`);
    // A secret sealed with a key this worker lacks throws: retried, never sent unsigned.
    const secret = target.secretSealed === null ? deps.defaultSecret : openSecret(deps.keys, target.secretSealed);
    const body = noticeBody(notice);
    const headers = noticeHeaders(notice, body, secret, Math.floor(now() / 1000));
    const { outcome } = await deps.sender.send({ url: target.url, body, headers });
    const log = { orgId: notice.orgId, notice: notice.id, type: notice.type, attempt: job.attemptsMade + 1 };
    if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status <= 299) {
      deps.logger.debug(log, 'notice sent');
      return 'sent';
    }
    const error = outcome.kind === 'response' ? `HTTP ${outcome.status}` : outcome.message;
    deps.logger.info({ ...log, error }, 'notice not accepted; retried with backoff');
    if (outcome.kind === 'blocked' || outcome.kind === 'invalid_target') throw new UnrecoverableError(error);
    throw new Error(`notice not accepted: ${error}`);
  };
}
