import type { NoticeType, OrgId } from '@relay/core';

/** A notice for an organization's notification URL (PUT /api/organization/notifications). */
export interface Notice {
  type: NoticeType;
  data: Record<string, unknown>;
}

/** Queues a notice; organizations without a notification URL get none. Resolves once it is queued. */
export type Notifier = (orgId: OrgId, notice: Notice) => Promise<void>;
