import type { AttemptOutcome, FeedMessage, OrgId, UnhealthyReason } from '@relay/core';
import type { AuditInput, RuleRecord, RuleHealthRepository, TurnedUnhealthy } from '@relay/db';
import type { FeedPublisher } from '@relay/queue';
import type { Logger } from 'pino';
import type { Notifier } from './notifications/notifier';

export interface RuleHealthDeps {
  repository: RuleHealthRepository;
  /** RULE_UNHEALTHY_AFTER_SECONDS: failures with no success for this long, unless the rule sets its own. */
  unhealthyAfterSeconds: number;
  feed?: FeedPublisher;
  /** Told once a rule has turned unhealthy (committed): this worker forgets it and tells the others. */
  turned?: (orgId: OrgId, ruleId: string) => Promise<void>;
  logger: Logger;
  now?: () => number;
}

/** An attempt as health sees it: what the target answered and whether the event was delivered. */
export interface AttemptSeen {
  outcome: AttemptOutcome;
  delivered: boolean;
}

/** Before an attempt: stop (the event was paused, or is no longer queued), or go on with the rule as it is. */
export type BeforeAttempt = { stop: 'paused' | 'skipped' } | { rule: RuleRecord | null };

export interface RuleHealth {
  /** Pauses the event instead of an attempt while its rule is unhealthy; no round trip for a healthy rule. */
  beforeAttempt(orgId: OrgId, eventId: string, rule: RuleRecord | null): Promise<BeforeAttempt>;
  /**
   * A 410 from the rule's target, before the outcome is stored: the rule turns unhealthy. `fail`: this attempt
   * turned it (the event fails, as a 410 does); `pause`: it was unhealthy already, so the event is paused with
   * the rule's others: the caller stores the attempt with the event still queued, then calls `pauseGone`.
   */
  gone(orgId: OrgId, eventId: string, rule: RuleRecord, notify?: Notifier): Promise<'fail' | 'pause'>;
  /** Pauses an event whose attempt met a 410 on an unhealthy rule (its attempt stored, the event queued). */
  pauseGone(orgId: OrgId, eventId: string, rule: RuleRecord): Promise<BeforeAttempt>;
  /**
   * After an attempt's outcome is committed: keeps the rule's failing run and health up to date; a rule
   * that turns unhealthy is told to `notify` (the deliver processor's notifier) after the commit.
   */
  afterAttempt(orgId: OrgId, rule: RuleRecord | null, attempt: AttemptSeen, notify?: Notifier): Promise<void>;
}

const statusMessage = (id: string, now: number): FeedMessage => ({
  type: 'event.status',
  at: now,
  data: { id, status: 'paused', failure_reason: null, acknowledged: false },
});

// Endpoint health (docs/rules.md, "Endpoint health"). A healthy rule whose deliveries succeed costs no
// database round trip here: writes happen only when the cached rule says the state changes (a failing run
// starts or ends, a 410, the span passed), and each write is conditional so concurrent workers agree.
// Health is bookkeeping beside the delivery: a failed write is logged and the next attempt tries again.
export function createRuleHealth(deps: RuleHealthDeps): RuleHealth {
  const now = deps.now ?? Date.now;

  async function turnUnhealthy(
    orgId: OrgId,
    rule: RuleRecord,
    reason: UnhealthyReason,
    status: number | null,
    notify: Notifier | undefined,
    causeId: string | null = null,
  ): Promise<boolean> {
    const audit = (t: TurnedUnhealthy): AuditInput => ({
      actorUserId: null,
      actorEmail: null,
      action: 'rule.unhealthy',
      resourceType: 'rule',
      resourceId: rule.id,
      // paused_events: the queued events this transition paused; later pauses have entries of their own.
      metadata: { reason, since: t.since.toISOString(), response_status: status, paused_events: t.pausedIds.length },
    });
    const turned = await deps.repository.markUnhealthy(orgId, rule.id, reason, new Date(now()), audit, causeId);
    if (!turned) return false; // another worker turned it first, and told
    // Every worker stops attempting the rule now, not when its cache of the rule expires.
    await deps.turned?.(orgId, rule.id);
    deps.logger.warn({ orgId, ruleId: rule.id, reason, paused: turned.pausedIds.length }, 'rule turned unhealthy');
    if (deps.feed && turned.pausedIds.length > 0)
      await deps.feed.publish(
        orgId,
        turned.pausedIds.map((id) => statusMessage(id, now())),
      );
    const data = {
      rule: { id: turned.rule.id, source: turned.rule.source, target_url: turned.rule.targetUrl },
      reason,
      since: turned.since.toISOString(),
    };
    // After the commit: a notice that cannot be queued is logged, the state change stands.
    await notify?.(orgId, { type: 'rule.unhealthy', data }).catch((err: unknown) => {
      deps.logger.warn({ err, orgId, ruleId: rule.id }, 'rule.unhealthy notice not queued');
    });
    return true;
  }

  // A pause after the transition is audited as one (rule.event_paused), so the rule's entries account for
  // every event its health held back: response_status 410 when the event's own attempt met the gone target.
  async function pause(orgId: OrgId, eventId: string, rule: RuleRecord, status: number | null) {
    const audit: AuditInput = {
      actorUserId: null,
      actorEmail: null,
      action: 'rule.event_paused',
      resourceType: 'rule',
      resourceId: rule.id,
      metadata: { event_id: eventId, response_status: status },
    };
    // The cached rule may be stale: the statement checks the rule's committed health as it pauses.
    const result = await deps.repository.pauseEvent(orgId, eventId, rule.id, audit);
    if (result.paused) {
      await deps.feed?.publish(orgId, [statusMessage(eventId, now())]);
      return { stop: 'paused' } as const;
    }
    // Unhealthy, yet not paused: the event is no longer queued (another worker took it).
    if (result.health === 'unhealthy') return { stop: 'skipped' } as const;
    // Resumed since it was cached (a resume clears the failing run too), or deleted.
    return { rule: result.health === null ? null : { ...rule, health: 'healthy' as const, failingSince: null } };
  }

  async function afterAttempt(
    orgId: OrgId,
    rule: RuleRecord,
    { outcome, delivered }: AttemptSeen,
    notify: Notifier | undefined,
  ) {
    if (delivered) {
      if (rule.failingSince !== null) await deps.repository.clearFailing(orgId, rule.id);
      return;
    }
    // 410 Gone: the rule turned unhealthy before the outcome was stored (gone()).
    if (outcome.kind === 'response' && outcome.status === 410) return;
    const at = now();
    const since = rule.failingSince ?? (await deps.repository.markFailing(orgId, rule.id, new Date(at)));
    if (since === null) return;
    const spanMs = (rule.unhealthyAfterSeconds ?? deps.unhealthyAfterSeconds) * 1000;
    if (at - since.getTime() >= spanMs)
      await turnUnhealthy(orgId, rule, 'failing', outcome.kind === 'response' ? outcome.status : null, notify);
  }

  return {
    async beforeAttempt(orgId, eventId, rule) {
      if (rule?.health !== 'unhealthy') return { rule };
      return pause(orgId, eventId, rule, null);
    },

    // 410 Gone: the receiver says the endpoint is gone for good; nothing is gained by waiting for the span.
    // The transition comes first, so an attempt that meets a 410 on a rule another attempt already turned
    // learns it and pauses its event instead of failing it.
    async gone(orgId, eventId, rule, notify) {
      try {
        return (await turnUnhealthy(orgId, rule, 'gone', 410, notify, eventId)) ? 'fail' : 'pause';
      } catch (err) {
        // Health is bookkeeping: the event fails, as a 410 does; the next 410 tries the transition again.
        deps.logger.warn({ err, orgId, ruleId: rule.id }, 'rule health update failed; the next attempt tries again');
        return 'fail';
      }
    },

    pauseGone: (orgId, eventId, rule) => pause(orgId, eventId, rule, 410),

    async afterAttempt(orgId, rule, attempt, notify) {
      // An unhealthy rule stays so until it is resumed; events without a rule have no health.
      if (rule === null || rule.health === 'unhealthy') return;
      try {
        await afterAttempt(orgId, rule, attempt, notify);
      } catch (err) {
        deps.logger.warn({ err, orgId, ruleId: rule.id }, 'rule health update failed; the next attempt tries again');
      }
    },
  };
}
