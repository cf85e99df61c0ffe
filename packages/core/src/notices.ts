// Notices to an organization's notification URL (docs/rules.md, "Notifications"): every type the relay sends,
// in one list, so the worker, the queue's job data and the documentation name the same ones.
export const NOTICE_TYPES = ['rule.unhealthy', 'destination.unhealthy', 'events.failed'] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];
