// An event's or a destination's destination deliveries by status (docs/routing.md), said shortly: "3 · 1 failed".

export interface DeliveryCounts {
  total: number;
  queued: number;
  delivered: number;
  failed: number;
  paused: number;
}

/** The total, then the statuses that need a look (failed, paused) and those under way (queued); '' for none. */
export function deliveryCountsText(counts: DeliveryCounts): string {
  if (counts.total === 0) return '';
  const parts = (['failed', 'paused', 'queued'] as const)
    .filter((status) => counts[status] > 0)
    .map((status) => `${counts[status]} ${status}`);
  return [String(counts.total), ...parts].join(' · ');
}
