import type { OrgId } from '@relay/core';

// Every queue and job the relay uses, in one place. Jobs carry ids only: the database is the truth,
// and a worker reloads the event it is told about.
export const QUEUES = { delivery: 'deliveries' } as const;

export const JOBS = { deliver: 'deliver' } as const;

export interface DeliverJobData {
  orgId: OrgId;
  eventId: string;
}

export interface DeliverJobRequest extends DeliverJobData {
  /** Milliseconds to wait before the attempt; 0 for now. */
  delayMs?: number;
}
