import { compileFilter, createCachedLoader, matches, type CompiledFilter, type OrgId } from '@relay/core';
import type {
  DeliveryRepository,
  DestinationRecord,
  DestinationRepository,
  OrderingHead,
  StoredEvent,
} from '@relay/db';
import type { DestinationJobRequest, FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';
import { deliveryMessage } from './feed-messages';
import { filterSubjectOf } from './rule-filter';

export interface FanOutDeps {
  destinations: Pick<DestinationRepository, 'active'>;
  deliveries: Pick<DeliveryRepository, 'fanOut'>;
  enqueue: (requests: DestinationJobRequest[]) => Promise<void>;
  /** Ordered delivery: gives a delivery this fan-out released (its key no longer held) its job. */
  handOff?: ((heads: readonly OrderingHead[]) => void) | undefined;
  /** The live feed: hears of each delivery made (best effort, after the commit). */
  feed?: FeedPublisher | undefined;
  /** How long a rule's active destinations are remembered (RULE_CACHE_MS): a change applies within it. */
  cacheMs: number;
  logger: Logger;
  now?: () => number;
}

/** Makes an event's destination deliveries; resolves once they are committed (their jobs are best effort). */
export type FanOut = ((orgId: OrgId, event: StoredEvent, trace?: string) => Promise<void>) & {
  forget(orgId: OrgId, ruleId: string): void;
};

// Routing's fan-out (docs/routing.md, "Destinations"), run by prepare on an event's first pass, before its
// rule's filter and health decide the primary (an `ignored` or paused primary still fans out). A rule's
// active destinations are cached like the rule, so a rule without destinations costs a map lookup. All of
// the event's deliveries are written in one statement, idempotently (unique per event and destination), and
// enqueued after the commit: a worker killed in between leaves queued deliveries the sweeper finds, and a
// second run adds none.
export function createFanOut(deps: FanOutDeps): FanOut {
  const active = createCachedLoader({
    load: (orgId: OrgId, ruleId: string) => deps.destinations.active(orgId, ruleId),
    keyOf: (orgId, ruleId) => `${orgId}\u0000${ruleId}`,
    cacheMs: deps.cacheMs,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const compiled = new WeakMap<DestinationRecord, CompiledFilter | null>();
  function filterOf(destination: DestinationRecord): CompiledFilter | null {
    if (compiled.has(destination)) return compiled.get(destination)!;
    const result = compileFilter(destination.filter);
    // A saved filter passed the same check; one that no longer compiles lets nothing through, and says so.
    if (!result.ok)
      deps.logger.error(
        { destinationId: destination.id, errors: result.errors },
        'destination filter does not compile',
      );
    const filter = result.ok ? result.filter : null;
    compiled.set(destination, filter);
    return filter;
  }

  const fanOut = async (orgId: OrgId, event: StoredEvent, trace?: string): Promise<void> => {
    if (event.ruleId === null) return;
    const destinations = await active(orgId, event.ruleId);
    if (destinations.length === 0) return;
    let subject: ReturnType<typeof filterSubjectOf> | undefined;
    const matched = destinations.filter((d) => {
      if (d.filter === null) return true;
      const filter = filterOf(d);
      return filter !== null && matches(filter, (subject ??= filterSubjectOf(event)));
    });
    // None matched: still one statement, since an ordered event's fan-out is marked done, which may free the next
    // delivery of its key at a destination (it is a no-op for an unordered event).
    const { queued, added, released } = await deps.deliveries.fanOut(
      orgId,
      event.id,
      matched.map((d) => d.id),
    );
    const at = (deps.now ?? Date.now)();
    if (deps.feed && added.length > 0)
      await deps.feed.publish(
        orgId,
        added.map((d) => deliveryMessage(d, d.status, at)),
      );
    if (released.length > 0) deps.handOff?.(released);
    try {
      await deps.enqueue(
        queued.map((q) => ({
          orgId,
          deliveryId: q.id,
          eventId: q.eventId,
          destinationId: q.destinationId,
          delayMs: Math.max(0, (q.nextAttemptAt?.getTime() ?? at) - at),
          // Traced: each destination's job continues the event's trace (its parent the primary job's span).
          ...(trace !== undefined ? { trace } : {}),
        })),
      );
    } catch (err) {
      // Committed: the sweeper gives these deliveries their jobs; the primary goes on.
      deps.logger.warn({ err, eventId: event.id }, 'destination deliveries not enqueued; the sweeper will');
    }
  };
  return Object.assign(fanOut, { forget: (orgId: OrgId, ruleId: string) => active.forget(orgId, ruleId) });
}
