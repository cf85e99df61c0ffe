import { AppError, sealSecret, secretHash, type Principal, type SecretKeyring, type TargetPolicy } from '@relay/core';
import type { ruleCreateSchema, ruleSecretRotateSchema, ruleUpdateSchema } from '@relay/contracts';
import type { RuleChanges, RuleRecord, RuleWrite, Repositories } from '@relay/db';
import { rulePacingKey } from '@relay/queue';
import type { z } from 'zod';
import { allowedTarget } from '../allowed-target';
import { audited } from '../audit-entry';
import type { PacingStateReader } from './pacing-state';
import { checkTransform, transformAudit, transformPacingChanges, type TransformCompiler } from './transform-pacing';
import { ruleListView, ruleView } from './rule.views';

export interface RuleServiceDeps {
  repositories: Pick<Repositories, 'rules' | 'transaction'>;
  targetPolicy: TargetPolicy;
  /** SECRET_ENCRYPTION_KEYS: signing secrets are stored sealed, never in plaintext. */
  secretKeys: SecretKeyring | undefined;
  /** The sandbox's dry compile: a transform that does not compile is refused at save. */
  transforms: TransformCompiler;
  /** The pacing state one rule's read shows (from Redis); without it, `pacing_state` is null. */
  pacingState?: PacingStateReader;
  now?: () => Date;
  /** DEFAULT_SIGNING_SECRET is set (shown as `signing: "default"`); unset: false. */
  defaultSigning?: boolean;
}

export type RuleInput = z.output<typeof ruleCreateSchema>;
export type RuleUpdate = z.output<typeof ruleUpdateSchema>;
export type SecretRotation = z.output<typeof ruleSecretRotateSchema>;

// Thrown inside the transaction, so a refused write leaves no audit entry behind.
export function written(result: RuleWrite) {
  if (result.ok) return result.rule;
  if (result.conflict === 'not_found') throw new AppError('not_found', 'No such rule.');
  throw new AppError(result.conflict);
}

// Checked on the written state (inside the transaction, so a refusal rolls back): verification is
// turned on with a secret in the same request or on a rule that has one already.
function verifiable(rule: RuleRecord): RuleRecord {
  if (rule.verification !== null && rule.verificationSecret === null)
    throw new AppError('verification_secret_required');
  return rule;
}

// Audit metadata names what changed, never the signing secret itself.
const changedFields = (input: Record<string, unknown>) => Object.keys(input).filter((k) => input[k] !== undefined);

// The organization's rules: source → target, at most one active per source.
export function createRuleService(deps: RuleServiceDeps) {
  const defaultSigns = deps.defaultSigning ?? false;
  const { repositories: repos, targetPolicy } = deps;
  const now = deps.now ?? (() => new Date());
  const seal = (secret: string) => {
    if (!deps.secretKeys) throw new AppError('secrets_not_configured');
    return sealSecret(deps.secretKeys, secret);
  };
  // Checked by `seal` first: a hash is only ever written beside the secret it was made from.
  const hash = (secret: string | null) => (secret === null ? null : secretHash(deps.secretKeys!, secret));
  const changesOf = (input: RuleUpdate): RuleChanges => ({
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.source !== undefined ? { source: input.source } : {}),
    ...(input.target_url !== undefined ? { targetUrl: allowedTarget(input.target_url, targetPolicy) } : {}),
    ...(input.active !== undefined ? { active: input.active } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.outbound_headers !== undefined ? { outboundHeaders: input.outbound_headers } : {}),
    ...optionChanges(input),
    // Setting the secret outright replaces both: a rotation window is what /secret/rotate is for.
    ...(input.signing_secret !== undefined
      ? {
          signingSecret: input.signing_secret === null ? null : seal(input.signing_secret),
          signingSecretHash: hash(input.signing_secret),
          previousSigningSecret: null,
          previousSecretExpiresAt: null,
        }
      : {}),
  });

  // Rule options (docs/rules.md): undefined leaves one as it is, null turns it off.
  const optionChanges = (input: RuleUpdate): RuleChanges => ({
    ...(input.dedup !== undefined ? { dedup: input.dedup } : {}),
    ...(input.verification !== undefined ? { verification: input.verification } : {}),
    ...(input.verification_secret !== undefined
      ? {
          verificationSecret: input.verification_secret === null ? null : seal(input.verification_secret),
          verificationSecretHash: hash(input.verification_secret),
          previousVerificationSecret: null,
          previousVerificationExpiresAt: null,
        }
      : {}),
    ...(input.unhealthy_after_seconds !== undefined ? { unhealthyAfterSeconds: input.unhealthy_after_seconds } : {}),
    ...(input.ordering !== undefined ? { ordering: input.ordering } : {}),
    ...(input.delivery_policy !== undefined ? { deliveryPolicy: input.delivery_policy } : {}),
    ...(input.filter !== undefined ? { filter: input.filter } : {}),
    ...transformPacingChanges(input),
  });

  return {
    async list(principal: Principal) {
      return (await repos.rules.list(principal.orgId)).map((r) => ruleListView(r, defaultSigns));
    },

    async get(principal: Principal, id: string) {
      const rule = await repos.rules.findById(principal.orgId, id);
      if (!rule) throw new AppError('not_found', 'No such rule.');
      const pacingState = deps.pacingState ? await deps.pacingState(rulePacingKey(rule.id), rule) : null;
      return { ...ruleView(rule, defaultSigns), pacing_state: pacingState };
    },

    async create(principal: Principal, input: RuleInput) {
      const targetUrl = allowedTarget(input.target_url, targetPolicy);
      await checkTransform(deps.transforms, input.transform);
      const rule = await repos.transaction(async (tx) => {
        const created = verifiable(
          written(
            await tx.rules.create(principal.orgId, {
              ...(input.name !== undefined ? { name: input.name } : {}),
              source: input.source,
              targetUrl,
              active: input.active,
              description: input.description ?? null,
              signingSecret: input.signing_secret ? seal(input.signing_secret) : null,
              signingSecretHash: input.signing_secret ? hash(input.signing_secret) : null,
              outboundHeaders: input.outbound_headers ?? {},
              ...optionChanges(input),
            }),
          ),
        );
        const metadata = {
          name: created.name,
          source: created.source,
          target_url: created.targetUrl,
          active: created.active,
          ...transformAudit(input.transform ?? undefined),
        };
        const fact = { action: 'rule.created', resourceType: 'rule', resourceId: created.id, metadata };
        await audited(tx, principal, fact);
        return created;
      });
      return ruleView(rule, defaultSigns);
    },

    async update(principal: Principal, id: string, input: RuleUpdate) {
      const changes = changesOf(input);
      await checkTransform(deps.transforms, input.transform);
      const rule = await repos.transaction(async (tx) => {
        const updated = verifiable(written(await tx.rules.update(principal.orgId, id, changes)));
        const metadata = { changed: changedFields(input), ...transformAudit(input.transform) };
        await audited(tx, principal, { action: 'rule.updated', resourceType: 'rule', resourceId: id, metadata });
        return updated;
      });
      return ruleView(rule, defaultSigns);
    },

    /**
     * The new secret signs from now on; the one it replaces keeps signing beside it (a second
     * webhook-signature) until the window ends, so receivers can switch without dropping events.
     */
    async rotateSecret(principal: Principal, id: string, input: SecretRotation) {
      const rule = await repos.transaction(async (tx) => {
        const current = await tx.rules.findById(principal.orgId, id);
        if (!current) throw new AppError('not_found', 'No such rule.');
        const windowMs = input.previous_secret_valid_for_seconds * 1000;
        const keepPrevious = current.signingSecret !== null && windowMs > 0;
        const previousSecretExpiresAt = keepPrevious ? new Date(now().getTime() + windowMs) : null;
        const updated = written(
          await tx.rules.update(principal.orgId, id, {
            signingSecret: seal(input.signing_secret),
            signingSecretHash: hash(input.signing_secret),
            previousSigningSecret: keepPrevious ? current.signingSecret : null,
            previousSecretExpiresAt,
          }),
        );
        const metadata = { previous_secret_expires_at: previousSecretExpiresAt?.toISOString() ?? null };
        await audited(tx, principal, { action: 'rule.secret_rotated', resourceType: 'rule', resourceId: id, metadata });
        return updated;
      });
      return ruleView(rule, defaultSigns);
    },

    async delete(principal: Principal, id: string): Promise<void> {
      await repos.transaction(async (tx) => {
        const deleted = await tx.rules.delete(principal.orgId, id);
        if (!deleted) throw new AppError('not_found', 'No such rule.');
        const metadata = { source: deleted.source };
        await audited(tx, principal, { action: 'rule.deleted', resourceType: 'rule', resourceId: id, metadata });
      });
    },
  };
}
