// Types of ledger.mjs for its test (the bench's own code is plain JavaScript, run by node as it is).
export interface TargetLedger {
  expected: number;
  received: number;
  lost: number;
  duplicates: number;
  misrouted: number;
}

/** `receipts`: `[webhookId, firstSeenAt, timesSeen, eventId]` rows of one target. */
export function ledger(receipts: ReadonlyArray<ReadonlyArray<string | number>>, expected: Set<string>): TargetLedger;
