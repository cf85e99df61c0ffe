// The fan-out bench's ledger of one target (bench/lib/rule-phase.mjs): the target counts what it received by
// webhook-id (bench/target-server.mjs with KEY_HEADER=webhook-id) and names each one's event.

/**
 * `receipts`: the target's `[webhookId, firstSeenAt, timesSeen, eventId]` rows; `expected`: the event ids it
 * should receive. Per target: which expected events arrived (`lost`: none did), deliveries seen more than once, or more
 * than one webhook-id for one event (`duplicates`), and arrivals of events it should not get (`misrouted`).
 */
export function ledger(receipts, expected) {
  const perEvent = new Map();
  let duplicates = 0;
  for (const [, , n, eventId] of receipts) {
    duplicates += n - 1;
    perEvent.set(eventId, (perEvent.get(eventId) ?? 0) + 1);
  }
  for (const webhookIds of perEvent.values()) duplicates += webhookIds - 1;
  let lost = 0;
  for (const id of expected) if (!perEvent.has(id)) lost++;
  const misrouted = [...perEvent.keys()].filter((id) => !expected.has(id)).length;
  return { expected: expected.size, received: receipts.length, lost, duplicates, misrouted };
}
