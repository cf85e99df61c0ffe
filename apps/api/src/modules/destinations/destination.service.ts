import { AppError, sealSecret, secretHash, type Principal, type SecretKeyring, type TargetPolicy } from '@relay/core';
import type { destinationCreateSchema, destinationUpdateSchema } from '@relay/contracts';
import type { DestinationChanges, DestinationWrite, Repositories, TransactionRepositories } from '@relay/db';
import { destinationPacingKey, type DeliveryQueue, type FeedPublisher, type RuleChangePublisher } from '@relay/queue';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { allowedTarget } from '../allowed-target';
import { audited, type AuditFact } from '../audit-entry';
import {
  checkTransform,
  transformAudit,
  transformPacingChanges,
  type TransformCompiler,
} from '../rules/transform-pacing';
import type { PacingStateReader } from '../rules/pacing-state';
import { destinationListView, destinationView } from './destination.views';

export interface DestinationServiceDeps {
  repositories: Pick<Repositories, 'destinations' | 'rules' | 'transaction'>;
  targetPolicy: TargetPolicy;
  /** SECRET_ENCRYPTION_KEYS: a destination's signing secret is stored sealed, as a rule's is. */
  secretKeys: SecretKeyring | undefined;
  queue: Pick<DeliveryQueue, 'enqueueDestinations'>;
  /** Tells every worker to forget the rule's cached destinations (rule-changes.ts). */
  ruleChanges: RuleChangePublisher;
  /** The live feed: hears of the deliveries a resume queues again (`delivery.status`). */
  feed: FeedPublisher;
  /** The sandbox's dry compile: a transform that does not compile is refused at save. */
  transforms: TransformCompiler;
  /** The pacing state one destination's read shows (from Redis); without it, `pacing_state` is null. */
  pacingState?: PacingStateReader;
  logger: Logger;
  now?: () => number;
  /** DEFAULT_SIGNING_SECRET is set (shown as `signing: "default"`); unset: false. */
  defaultSigning?: boolean;
}

export type DestinationInput = z.output<typeof destinationCreateSchema>;
export type DestinationUpdate = z.output<typeof destinationUpdateSchema>;

// Thrown inside the transaction, so a refused write leaves no audit entry behind.
function written(result: DestinationWrite) {
  if (result.ok) return result.destination;
  if (result.conflict === 'not_found') throw new AppError('not_found', 'No such destination.');
  throw new AppError(result.conflict);
}

// Audit metadata names what changed, never the signing secret itself.
const changedFields = (input: Record<string, unknown>) => Object.keys(input).filter((k) => input[k] !== undefined);

// Routing's destinations (docs/routing.md, "Destinations"): further targets of one rule. Each write and its
// audit entry commit together; then every worker is told, so the rule's fan-out sees the change at once
// (a lost message only leaves the worker's cache to expire within RULE_CACHE_MS).
export function createDestinationService(deps: DestinationServiceDeps) {
  const defaultSigns = deps.defaultSigning ?? false;
  const { repositories: repos, targetPolicy } = deps;
  const seal = (secret: string) => {
    if (!deps.secretKeys) throw new AppError('secrets_not_configured');
    return sealSecret(deps.secretKeys, secret);
  };
  // The rule must be the caller's: another organization's rule id is a 404 like an unknown one.
  const ruleOf = async (r: Pick<TransactionRepositories, 'rules'>, principal: Principal, id: string) => {
    if (!(await r.rules.findById(principal.orgId, id))) throw new AppError('not_found', 'No such rule.');
  };
  const fact = (action: string, id: string, metadata: Record<string, unknown>): AuditFact => ({
    action,
    resourceType: 'destination',
    resourceId: id,
    metadata,
  });
  const changed = (principal: Principal, ruleId: string) =>
    deps.ruleChanges.publish({ orgId: principal.orgId, ruleId });
  const changesOf = (input: DestinationUpdate): DestinationChanges => ({
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.target_url !== undefined ? { targetUrl: allowedTarget(input.target_url, targetPolicy) } : {}),
    ...(input.filter !== undefined ? { filter: input.filter } : {}),
    ...(input.active !== undefined ? { active: input.active } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.signing_secret !== undefined
      ? input.signing_secret === null
        ? { signingSecret: null, signingSecretHash: null }
        : {
            signingSecret: seal(input.signing_secret),
            signingSecretHash: secretHash(deps.secretKeys!, input.signing_secret),
          }
      : {}),
    ...(input.outbound_headers !== undefined ? { outboundHeaders: input.outbound_headers } : {}),
    ...(input.delivery_policy !== undefined ? { deliveryPolicy: input.delivery_policy } : {}),
    ...(input.unhealthy_after_seconds !== undefined ? { unhealthyAfterSeconds: input.unhealthy_after_seconds } : {}),
    ...transformPacingChanges(input),
  });

  return {
    async list(principal: Principal, ruleId: string) {
      await ruleOf(repos, principal, ruleId);
      return (await repos.destinations.list(principal.orgId, ruleId)).map((r) => destinationListView(r, defaultSigns));
    },

    async get(principal: Principal, ruleId: string, id: string) {
      const destination = await repos.destinations.findById(principal.orgId, ruleId, id);
      if (!destination) throw new AppError('not_found', 'No such destination.');
      const key = destinationPacingKey(destination.id);
      const pacingState = deps.pacingState ? await deps.pacingState(key, destination) : null;
      return { ...destinationView(destination, defaultSigns), pacing_state: pacingState };
    },

    async create(principal: Principal, ruleId: string, input: DestinationInput) {
      const data = {
        ...changesOf({ ...input, target_url: undefined }),
        targetUrl: allowedTarget(input.target_url, targetPolicy),
      };
      await checkTransform(deps.transforms, input.transform);
      const destination = await repos.transaction(async (tx) => {
        await ruleOf(tx, principal, ruleId);
        const created = written(await tx.destinations.create(principal.orgId, ruleId, data));
        const metadata = {
          rule_id: ruleId,
          name: created.name,
          target_url: created.targetUrl,
          active: created.active,
          ...transformAudit(input.transform ?? undefined),
        };
        await audited(tx, principal, fact('destination.created', created.id, metadata));
        return created;
      });
      await changed(principal, ruleId);
      return destinationView(destination, defaultSigns);
    },

    async update(principal: Principal, ruleId: string, id: string, input: DestinationUpdate) {
      const changes = changesOf(input);
      await checkTransform(deps.transforms, input.transform);
      const destination = await repos.transaction(async (tx) => {
        await ruleOf(tx, principal, ruleId);
        const updated = written(await tx.destinations.update(principal.orgId, ruleId, id, changes));
        const metadata = { rule_id: ruleId, changed: changedFields(input), ...transformAudit(input.transform) };
        await audited(tx, principal, fact('destination.updated', id, metadata));
        return updated;
      });
      await changed(principal, ruleId);
      return destinationView(destination, defaultSigns);
    },

    /** Deletes the destination with its deliveries and their attempts. */
    async delete(principal: Principal, ruleId: string, id: string): Promise<void> {
      await repos.transaction(async (tx) => {
        await ruleOf(tx, principal, ruleId);
        if (!(await tx.destinations.delete(principal.orgId, ruleId, id)))
          throw new AppError('not_found', 'No such destination.');
        await audited(tx, principal, fact('destination.deleted', id, { rule_id: ruleId }));
      });
      await changed(principal, ruleId);
    },

    /**
     * Healthy again and its paused deliveries queued (with the audit entry, in one transaction), then their
     * jobs enqueued: a lost enqueue is found by the worker's sweeper. Resuming a healthy destination is allowed.
     */
    async resume(principal: Principal, ruleId: string, id: string) {
      const { destination, resumed } = await repos.transaction(async (tx) => {
        const result = await tx.destinations.resume(principal.orgId, ruleId, id);
        if (!result) throw new AppError('not_found', 'No such destination.');
        const metadata = { rule_id: ruleId, resumed_deliveries: result.resumed.length };
        await audited(tx, principal, fact('destination.resumed', id, metadata));
        const current = await tx.destinations.findById(principal.orgId, ruleId, id);
        if (!current) throw new AppError('not_found', 'No such destination.');
        return { destination: current, resumed: result.resumed };
      });
      await changed(principal, ruleId);
      const at = (deps.now ?? Date.now)();
      await deps.feed.publish(
        principal.orgId,
        resumed.map((d) => ({
          type: 'delivery.status' as const,
          at,
          data: {
            event_id: d.eventId,
            delivery_id: d.id,
            destination_id: d.destinationId,
            status: 'queued' as const,
            attempt_count: d.attemptCount,
          },
        })),
      );
      await deps.queue
        .enqueueDestinations(
          resumed.map((d) => ({ orgId: principal.orgId, deliveryId: d.id, eventId: d.eventId, destinationId: id })),
        )
        .catch((err: unknown) =>
          deps.logger.warn({ err, destinationId: id }, 'resumed deliveries not enqueued; the sweeper will'),
        );
      return { destination: destinationView(destination, defaultSigns), resumed_deliveries: resumed.length };
    },
  };
}
