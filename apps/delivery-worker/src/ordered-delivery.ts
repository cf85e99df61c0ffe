import type { OrgId } from '@relay/core';
import type { EventOrderingRepository, OrderingHead, StoredEvent } from '@relay/db';
import { destinationJobId, type DeliveryQueue } from '@relay/queue';
import type { Logger } from 'pino';
import type { RuleLookup } from './rule-lookup';

// Ordered delivery (rule option `ordering`, docs/rules.md). An event of an ordered rule is attempted
// only while it is its key's head (no older event of the key is queued or paused); otherwise its job
// ends without an attempt and the event waits, with no job, until the head finishes: the statement that
// records the head's final outcome releases the key and names the next head, which is handed a job.

/** What the gate says of an event: wait behind its key's head, or go ahead (ordered or not). */
export type OrderCheck = 'wait' | 'ordered' | 'unordered';

export interface OrderGate {
  check(orgId: OrgId, event: Pick<StoredEvent, 'id' | 'ruleId'>): Promise<OrderCheck>;
}

/** Only an ordered rule's events cost a query: for every other event the (cached) rule read decides. */
export function createOrderGate(deps: {
  rules: RuleLookup;
  ordering: Pick<EventOrderingRepository, 'isBlocked'>;
}): OrderGate {
  return {
    async check(orgId, event) {
      const rule = event.ruleId === null ? null : await deps.rules(orgId, event.ruleId);
      if (!rule?.ordering) return 'unordered';
      return (await deps.ordering.isBlocked(orgId, event.id)) ? 'wait' : 'ordered';
    },
  };
}

export interface OrderHandoffDeps {
  queue: Pick<DeliveryQueue, 'enqueue' | 'enqueueDestinations' | 'queueOf'>;
  /** What the heads are: events (the primary's order) or destination deliveries (each destination's order). */
  heads?: 'events' | 'deliveries';
  logger: Logger;
  /** First pause while the next head's old job is still active; doubled each time, `tries` times. */
  pauseMs?: number;
  tries?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The next head may still hold the job that found it blocked a moment before the release committed
// (job id = event id, or `dest-<delivery id>`, so an enqueue then is a no-op, and that job is about to end
// without an attempt).
// So the hand-off enqueues until the head's job is one that runs after the release: one created since
// (its own), or an older one that has not started (waiting or delayed). An older active job is waited
// for, a few short pauses (a waiting job's check is quick; past them the head is attempting already).
// A worker that dies before the hand-off leaves the head to the sweeper (it re-enqueues heads, never
// waiting events).
export function createOrderHandoff(deps: OrderHandoffDeps) {
  const pauseMs = deps.pauseMs ?? 25;
  const tries = deps.tries ?? 6;
  const running = new Set<Promise<void>>();
  const deliveries = deps.heads === 'deliveries';
  const enqueue = (head: OrderingHead) =>
    deliveries
      ? deps.queue.enqueueDestinations([
          { orgId: head.organizationId, deliveryId: head.id, eventId: head.eventId, destinationId: head.shardKey },
        ])
      : deps.queue.enqueue([{ orgId: head.organizationId, eventId: head.id, ruleId: head.shardKey }]);

  async function handOff(head: OrderingHead): Promise<void> {
    const released = Date.now();
    for (let i = 0; ; i++) {
      await enqueue(head);
      // Gone again already: the job ended in between (ours, having run, or the old one): enqueue again.
      // The head's job is in its rule's (or destination's) queue shard, where the enqueue above put it.
      const job = await deps.queue.queueOf(head.shardKey).getJob(deliveries ? destinationJobId(head.id) : head.id);
      if (job && (job.timestamp >= released || (await job.getState()) !== 'active')) return;
      if (i >= tries) return;
      await sleep(pauseMs * 2 ** i);
    }
  }

  return {
    /** Enqueues released keys' next events in the background (the outcome is committed already). */
    handOff(heads: readonly OrderingHead[]): void {
      for (const head of heads) {
        const run = handOff(head).catch((err: unknown) =>
          deps.logger.warn({ err, id: head.id }, 'ordered hand-off failed; the sweeper will enqueue it'),
        );
        running.add(run);
        void run.finally(() => running.delete(run));
      }
    },
    /** Waits for hand-offs in flight (shutdown). */
    async drain(): Promise<void> {
      await Promise.all([...running]);
    },
  };
}
