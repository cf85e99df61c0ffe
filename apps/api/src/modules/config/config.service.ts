import { AppError, checkAccess, type OrgId, type Principal, type SecretKeyring, type TargetPolicy } from '@relay/core';
import { CONFIG_SCHEMA_PATH, configFileSchema } from '@relay/contracts';
import type { Repositories } from '@relay/db';
import type { RuleChangePublisher } from '@relay/queue';
import { z } from 'zod';
import { allowedTarget } from '../allowed-target';
import { audited } from '../audit-entry';
import { checkTransform, type TransformCompiler } from '../rules/transform-pacing';
import { atPath, createStepRunner, runOrder } from './config-apply';
import { exportDocument } from './config-export';
import { planConfig, type PlannedStep } from './config-plan';
import { loadConfig, type ConfigDocument } from './config-state';

export interface ConfigServiceDeps {
  repositories: Pick<
    Repositories,
    'rules' | 'destinations' | 'hooks' | 'organizations' | 'notifications' | 'transaction'
  >;
  targetPolicy: TargetPolicy;
  /** SECRET_ENCRYPTION_KEYS: secrets are sealed, and compared through the keyed hash stored beside them. */
  secretKeys: SecretKeyring | undefined;
  /** The sandbox's dry compile: a transform that does not compile is refused before anything is written. */
  transforms: TransformCompiler;
  /** Tells every worker to forget a rule's cached destinations once the apply has committed. */
  ruleChanges?: Pick<RuleChangePublisher, 'publish'>;
  /** PUBLIC_BASE_URL: exported files name their JSON Schema by its absolute URL, for editors. */
  publicBaseUrl: string;
}

export interface ApplyOptions {
  dryRun: boolean;
  prune: boolean;
}

const MANAGE = { role: 'admin', scope: 'organization:manage' } as const;
const canManage = (principal: Principal) => checkAccess(principal, MANAGE).ok;

// Every target URL of the document as the relay stores it (normalised), or 422 `target_url_rejected` at its path.
function normalised(doc: ConfigDocument, policy: TargetPolicy): ConfigDocument {
  const url = (value: string, path: string) => {
    try {
      return allowedTarget(value, policy);
    } catch (error) {
      throw error instanceof AppError ? atPath(path, error) : error;
    }
  };
  const nullable = (value: string | null | undefined, path: string) =>
    value === null || value === undefined ? value : url(value, path);
  return {
    ...doc,
    default_target_url: nullable(doc.default_target_url, '/default_target_url'),
    ...(doc.notifications
      ? { notifications: { ...doc.notifications, url: nullable(doc.notifications.url, '/notifications/url') ?? null } }
      : {}),
    rules: doc.rules.map((r, ri) => ({
      ...r,
      target_url: url(r.target_url, `/rules/${ri}/target_url`),
      destinations: r.destinations.map((d, di) => ({
        ...d,
        target_url: url(d.target_url, `/rules/${ri}/destinations/${di}/target_url`),
      })),
      hooks: r.hooks.map((h, hi) => ({ ...h, target_url: url(h.target_url, `/rules/${ri}/hooks/${hi}/target_url`) })),
    })),
  };
}

// A transform is compiled only where the plan writes it; a refusal names its place in the document.
async function checkTransforms(compiler: TransformCompiler, steps: PlannedStep[]) {
  for (const step of steps) {
    if ((step.kind !== 'rule' && step.kind !== 'destination') || !step.changed.has('transform')) continue;
    try {
      await checkTransform(compiler, step.wanted?.transform);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      const [first] = (error.details?.errors ?? []) as { message: string }[];
      const path = `${step.change.path}/transform`;
      throw new AppError('validation_failed', 'The request is not valid.', {
        errors: [{ field: path.slice(1).replaceAll('/', '.'), path, message: first?.message ?? error.message }],
      });
    }
  }
}

const hasSecret = (doc: ConfigDocument) =>
  (doc.notifications?.secret ?? null) !== null ||
  doc.rules.some(
    (r) =>
      (r.signing_secret ?? null) !== null ||
      (r.verification_secret ?? null) !== null ||
      r.destinations.some((d) => (d.signing_secret ?? null) !== null),
  );

/** Configuration as code (docs/config-as-code.md): export the organization's configuration, plan and apply one. */
export function createConfigService(deps: ConfigServiceDeps) {
  const { repositories: repos } = deps;
  const schemaUrl = new URL(CONFIG_SCHEMA_PATH, deps.publicBaseUrl).toString();
  const jsonSchema = {
    ...z.toJSONSchema(configFileSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }),
    $id: schemaUrl,
    title: 'Webhook relay configuration',
  };

  const summaryOf = (steps: PlannedStep[]) => ({
    create: steps.filter((s) => s.change.action === 'create').length,
    update: steps.filter((s) => s.change.action === 'update').length,
    delete: steps.filter((s) => s.change.action === 'delete').length,
  });

  async function plan(principal: Principal, input: ConfigDocument, prune: boolean) {
    const doc = normalised(input, deps.targetPolicy);
    if (hasSecret(doc) && !deps.secretKeys) throw new AppError('secrets_not_configured');
    const steps = planConfig(await loadConfig(repos, principal.orgId), doc, { prune, keys: deps.secretKeys });
    // The notification URL receives facts about every rule: changing it is organization management.
    if (steps.some((s) => s.kind === 'notifications') && !canManage(principal))
      throw new AppError(
        'forbidden',
        'Changing the notification settings needs the organization:manage scope; leave `notifications` out.',
        { errors: [{ field: 'notifications', path: '/notifications', message: 'needs organization:manage' }] },
      );
    await checkTransforms(deps.transforms, steps);
    return steps;
  }

  return {
    /** The JSON Schema of the file (GET /api/schemas/relay-config.json), made once from the contract. */
    schema: () => jsonSchema,

    async export(principal: Principal) {
      const stored = await loadConfig(repos, principal.orgId);
      return exportDocument(stored, { schemaUrl, notifications: canManage(principal) });
    },

    async apply(principal: Principal, input: ConfigDocument, options: ApplyOptions) {
      const steps = await plan(principal, input, options.prune);
      const changes = steps.map((s) => s.change);
      const result = { changes, summary: summaryOf(steps), prune: options.prune };
      if (options.dryRun || steps.length === 0) return { ...result, applied: false };
      const touched = await repos.transaction(async (tx) => {
        const runner = createStepRunner(tx, principal.orgId, deps.secretKeys);
        for (const step of runOrder(steps)) await runner.run(step);
        // One entry for the whole apply, holding the plan: secrets in it are only "(set)" and "(changed)".
        const metadata = { summary: result.summary, prune: options.prune, changes };
        await audited(tx, principal, {
          action: 'config.applied',
          resourceType: 'organization',
          resourceId: principal.orgId,
          metadata,
        });
        return (await tx.rules.list(principal.orgId)).filter((r) =>
          steps.some((s) => s.change.name === r.name || s.change.rule === r.name),
        );
      });
      await publishChanges(deps, principal.orgId, touched);
      return { ...result, applied: true };
    },
  };
}

// After the commit, as the destination service does: a lost message only leaves a worker's cache to expire.
async function publishChanges(deps: ConfigServiceDeps, orgId: OrgId, rules: { id: string }[]) {
  if (!deps.ruleChanges) return;
  for (const rule of rules) await deps.ruleChanges.publish({ orgId, ruleId: rule.id }).catch(() => undefined);
}
