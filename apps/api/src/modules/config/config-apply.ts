import { AppError, sealSecret, secretHash, type ErrorCode, type OrgId, type SecretKeyring } from '@relay/core';
import type { RuleChanges, TransactionRepositories } from '@relay/db';
import type { DocumentDestination, DocumentRule } from './config-state';
import type { PlannedStep } from './config-plan';

// Runs a plan's steps inside the apply's transaction: deletions first (a pruned rule frees its source and name),
// then rules that turn inactive (freeing a source another rule takes), then the rest in document order.

type Tx = Pick<TransactionRepositories, 'rules' | 'destinations' | 'hooks' | 'organizations' | 'notifications'>;

/** A refusal inside the apply names where in the document it comes from. */
export function atPath(path: string, error: AppError): AppError {
  if (Array.isArray(error.details?.errors)) return error;
  const field = path.split('/').slice(1).join('.');
  return new AppError(error.code, error.message, {
    ...error.details,
    errors: [{ field, path, message: error.message }],
  });
}

const refuse = (path: string, conflict: string) => atPath(path, new AppError(conflict as ErrorCode));

const pick = <T extends object>(changes: T, changed: Set<string>, names: Record<string, keyof T>) =>
  Object.fromEntries(
    Object.entries(names).flatMap(([field, key]) => (changed.has(field) ? [[key, changes[key]]] : [])),
  );

const RULE_FIELDS = {
  source: 'source',
  target_url: 'targetUrl',
  active: 'active',
  description: 'description',
  outbound_headers: 'outboundHeaders',
  dedup: 'dedup',
  verification: 'verification',
  unhealthy_after_seconds: 'unhealthyAfterSeconds',
  ordering: 'ordering',
  delivery_policy: 'deliveryPolicy',
  filter: 'filter',
  transform: 'transform',
  forward_path_query: 'forwardPathQuery',
  rate_limit: 'rateLimit',
  max_concurrency: 'maxConcurrency',
} as const;

const DESTINATION_FIELDS = {
  target_url: 'targetUrl',
  filter: 'filter',
  active: 'active',
  description: 'description',
  outbound_headers: 'outboundHeaders',
  delivery_policy: 'deliveryPolicy',
  unhealthy_after_seconds: 'unhealthyAfterSeconds',
  transform: 'transform',
  forward_path_query: 'forwardPathQuery',
  rate_limit: 'rateLimit',
  max_concurrency: 'maxConcurrency',
} as const;

const pacing = (w: DocumentRule | DocumentDestination) => ({
  transform: w.transform ?? null,
  forwardPathQuery: w.forward_path_query ?? false,
  rateLimit: w.rate_limit ?? null,
  maxConcurrency: w.max_concurrency ?? null,
});

export function createStepRunner(tx: Tx, orgId: OrgId, keys: SecretKeyring | undefined) {
  const sealed = (secret: string | null | undefined) => {
    if (secret === null || secret === undefined) return { sealed: null, hash: null };
    if (!keys) throw new AppError('secrets_not_configured');
    return { sealed: sealSecret(keys, secret), hash: secretHash(keys, secret) };
  };
  const ruleIds = new Map<string, string>();
  const ruleId = async (name: string) => {
    const known = ruleIds.get(name);
    if (known) return known;
    const found = (await tx.rules.list(orgId)).find((r) => r.name === name);
    if (!found) throw new AppError('not_found', `No rule named "${name}".`);
    ruleIds.set(name, found.id);
    return found.id;
  };

  const ruleData = (w: DocumentRule) => {
    const signing = sealed(w.signing_secret);
    const verification = sealed(w.verification_secret);
    return {
      source: w.source,
      targetUrl: w.target_url,
      active: w.active,
      description: w.description ?? null,
      outboundHeaders: w.outbound_headers ?? {},
      dedup: w.dedup ?? null,
      verification: w.verification ?? null,
      unhealthyAfterSeconds: w.unhealthy_after_seconds ?? null,
      ordering: w.ordering ?? null,
      deliveryPolicy: w.delivery_policy ?? null,
      filter: w.filter ?? null,
      ...pacing(w),
      signingSecret: signing.sealed,
      signingSecretHash: signing.hash,
      verificationSecret: verification.sealed,
      verificationSecretHash: verification.hash,
    };
  };

  const destinationData = (w: DocumentDestination) => {
    const signing = sealed(w.signing_secret);
    return {
      targetUrl: w.target_url,
      filter: w.filter ?? null,
      active: w.active,
      description: w.description ?? null,
      outboundHeaders: w.outbound_headers ?? {},
      deliveryPolicy: w.delivery_policy ?? null,
      unhealthyAfterSeconds: w.unhealthy_after_seconds ?? null,
      ...pacing(w),
      signingSecret: signing.sealed,
      signingSecretHash: signing.hash,
    };
  };

  // Only the fields the plan changes are written: an unchanged secret keeps its sealed value and rotation window.
  const ruleChanges = (w: DocumentRule, changed: Set<string>): RuleChanges => {
    const all = ruleData(w);
    return {
      ...pick(all, changed, RULE_FIELDS),
      ...(changed.has('signing_secret')
        ? {
            signingSecret: all.signingSecret,
            signingSecretHash: all.signingSecretHash,
            previousSigningSecret: null,
            previousSecretExpiresAt: null,
          }
        : {}),
      ...(changed.has('verification_secret')
        ? {
            verificationSecret: all.verificationSecret,
            verificationSecretHash: all.verificationSecretHash,
            previousVerificationSecret: null,
            previousVerificationExpiresAt: null,
          }
        : {}),
    };
  };

  const written = <T extends { ok: boolean }>(path: string, result: T | null) => {
    if (result === null) throw atPath(path, new AppError('not_found'));
    if (!result.ok) throw refuse(`${path}/name`, (result as unknown as { conflict: string }).conflict);
    return result as Extract<T, { ok: true }>;
  };

  async function run(step: PlannedStep): Promise<void> {
    const { change } = step;
    const path = change.path;
    switch (step.kind) {
      case 'rule': {
        if (change.action === 'delete') return void (await tx.rules.delete(orgId, step.stored!.id));
        const w = step.wanted!;
        const result = step.stored
          ? await tx.rules.update(orgId, step.stored.id, ruleChanges(w, step.changed))
          : await tx.rules.create(orgId, { name: w.name, ...ruleData(w) });
        const rule = written(path, result).rule;
        // Checked on the written state, as the rule service does: verification needs a secret.
        if (rule.verification !== null && rule.verificationSecret === null)
          throw atPath(`${path}/verification_secret`, new AppError('verification_secret_required'));
        ruleIds.set(rule.name, rule.id);
        return;
      }
      case 'destination': {
        const id = await ruleId(step.rule);
        if (change.action === 'delete') return void (await tx.destinations.delete(orgId, id, step.stored!.id));
        const w = step.wanted!;
        const all = destinationData(w);
        const data = step.stored
          ? {
              ...pick(all, step.changed, DESTINATION_FIELDS),
              ...(step.changed.has('signing_secret')
                ? { signingSecret: all.signingSecret, signingSecretHash: all.signingSecretHash }
                : {}),
            }
          : { name: w.name, ...all };
        written(
          path,
          step.stored
            ? await tx.destinations.update(orgId, id, step.stored.id, data)
            : await tx.destinations.create(orgId, id, { targetUrl: w.target_url, ...data }),
        );
        return;
      }
      case 'hook': {
        const id = await ruleId(step.rule);
        // A hook's trigger is fixed at creation: a changed trigger replaces the hook.
        const replace = step.stored !== undefined && step.changed.has('trigger');
        if (change.action === 'delete' || replace) await tx.hooks.delete(orgId, id, step.stored!.id);
        if (change.action === 'delete') return;
        const w = step.wanted!;
        const data = { targetUrl: w.target_url, active: w.active, description: w.description ?? null };
        written(
          path,
          step.stored && !replace
            ? await tx.hooks.update(orgId, id, step.stored.id, data)
            : await tx.hooks.create(orgId, id, { name: w.name, trigger: w.trigger, ...data }),
        );
        return;
      }
      case 'default_target':
        return tx.organizations.setDefaultTarget(orgId, step.url);
      case 'notifications': {
        const previous = await tx.notifications.find(orgId);
        const secret = step.changed.has('secret')
          ? sealed(step.secret)
          : { sealed: previous?.secretSealed ?? null, hash: previous?.secretHash ?? null };
        const kept = step.url === null ? { sealed: null, hash: null } : secret;
        // Turning notices on starts the failure digest now, as PUT /api/organization/notifications does.
        const digestFrom = step.url !== null && !previous?.url ? new Date() : step.url === null ? null : undefined;
        const saved = { url: step.url, secretSealed: kept.sealed, secretHash: kept.hash };
        return tx.notifications.save(orgId, saved, digestFrom);
      }
    }
  }
  return { run };
}

/** The order steps run in: deletions, deactivations, then the document's order. */
export function runOrder(steps: PlannedStep[]): PlannedStep[] {
  const rank = (s: PlannedStep) => {
    if (s.change.action === 'delete') return s.kind === 'rule' ? 2 : 0;
    if (s.kind === 'rule' && s.stored && s.changed.has('active') && s.wanted?.active === false) return 3;
    return 4;
  };
  // Destinations and hooks are deleted before rules (a rule's delete would cascade to them anyway).
  return steps
    .map((s, i) => ({ s, i }))
    .sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i)
    .map(({ s }) => s);
}
