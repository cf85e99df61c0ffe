import type { OrgId, UnhealthyReason } from '@relay/core';
import type { AuditInput, DeliveryRepository, DestinationRecord, DestinationTurned } from '@relay/db';
import type { FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';
import { deliveryMessage } from './feed-messages';
import type { Notifier } from './notifications/notifier';

export interface DestinationHealthDeps {
  deliveries: Pick<DeliveryRepository, 'markFailing' | 'clearFailing' | 'markUnhealthy'>;
  /** RULE_UNHEALTHY_AFTER_SECONDS: a destination's failing span, unless it sets its own. */
  unhealthyAfterSeconds: number;
  /** Tells the organization's notification URL (destination.unhealthy); absent: no notices. */
  notify?: Notifier | undefined;
  /** The live feed: hears of the deliveries a transition paused. */
  feed?: FeedPublisher | undefined;
  logger: Logger;
  now: () => number;
}

export interface DestinationHealth {
  /**
   * Turns the destination unhealthy (pausing its queued deliveries but `causeId`), audited in the same
   * transaction. false: it was unhealthy already (another attempt turned it first, and told).
   */
  turnUnhealthy(
    orgId: OrgId,
    destination: DestinationRecord,
    reason: UnhealthyReason,
    status: number | null,
    causeId: string | null,
  ): Promise<boolean>;
  /** After an attempt's outcome is committed: keeps the failing run and health up to date (410s excepted). */
  afterAttempt(orgId: OrgId, destination: DestinationRecord, delivered: boolean, status: number | null): Promise<void>;
}

// A destination's endpoint health, as a rule's (rule-health.ts, docs/routing.md "Health and resume"): a
// healthy destination whose deliveries succeed costs no round trip; the transitions are the rule's own
// statements (health-transitions.ts in @relay/db). Bookkeeping beside the delivery: a failed write of the
// failing run is logged and the next attempt tries again.
export function createDestinationHealth(deps: DestinationHealthDeps): DestinationHealth {
  async function turnUnhealthy(
    orgId: OrgId,
    destination: DestinationRecord,
    reason: UnhealthyReason,
    status: number | null,
    causeId: string | null,
  ): Promise<boolean> {
    const audit = (t: DestinationTurned): AuditInput => ({
      actorUserId: null,
      actorEmail: null,
      action: 'destination.unhealthy',
      resourceType: 'destination',
      resourceId: destination.id,
      // paused_deliveries: the queued deliveries this transition paused; later ones wait paused as they come.
      metadata: {
        rule_id: destination.ruleId,
        reason,
        since: t.since.toISOString(),
        response_status: status,
        paused_deliveries: t.paused.length,
      },
    });
    const turned = await deps.deliveries.markUnhealthy(
      orgId,
      destination.id,
      reason,
      new Date(deps.now()),
      audit,
      causeId,
    );
    if (!turned) return false;
    deps.logger.warn(
      { orgId, destinationId: destination.id, reason, status, paused: turned.paused.length },
      'destination turned unhealthy',
    );
    if (deps.feed && turned.paused.length > 0)
      await deps.feed.publish(
        orgId,
        turned.paused.map((d) => deliveryMessage(d, 'paused', deps.now())),
      );
    const data = {
      destination: {
        id: turned.destination.id,
        name: turned.destination.name,
        rule_id: turned.destination.ruleId,
        target_url: turned.destination.targetUrl,
      },
      reason,
      since: turned.since.toISOString(),
    };
    // After the commit: a notice that cannot be queued is logged, the state change stands.
    await deps.notify?.(orgId, { type: 'destination.unhealthy', data }).catch((err: unknown) => {
      deps.logger.warn({ err, orgId, destinationId: destination.id }, 'destination.unhealthy notice not queued');
    });
    return true;
  }

  return {
    turnUnhealthy,

    async afterAttempt(orgId, destination, delivered, status) {
      // An unhealthy destination stays so until it is resumed; a 410 turned it before its outcome was stored.
      if (destination.health === 'unhealthy' || status === 410) return;
      try {
        if (delivered) {
          if (destination.failingSince !== null) await deps.deliveries.clearFailing(orgId, destination.id);
          return;
        }
        const at = deps.now();
        const since =
          destination.failingSince ?? (await deps.deliveries.markFailing(orgId, destination.id, new Date(at)));
        if (since === null) return;
        const spanMs = (destination.unhealthyAfterSeconds ?? deps.unhealthyAfterSeconds) * 1000;
        if (at - since.getTime() >= spanMs) await turnUnhealthy(orgId, destination, 'failing', status, null);
      } catch (err) {
        deps.logger.warn({ err, destinationId: destination.id }, 'destination health update failed');
      }
    },
  };
}
