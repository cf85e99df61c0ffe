import {
  CONFIG_SCHEMA_PATH,
  configApplyQuery,
  configDocumentSchema,
  configExportSchema,
  configPlanSchema,
} from '@relay/contracts';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

const common = { tag: 'config' } as const;

// Configuration as code (docs/config-as-code.md): `relay export` and `relay apply` over these.
export const configOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/config/export',
    access: { role: 'admin', scope: 'rules:read' },
    summary: "Export the organization's configuration as a document",
    description:
      'Rules with every option, their destinations and hooks, the default target and (for callers with ' +
      '`organization:manage` only) the notification settings. Secrets are never exported: each is a reference ' +
      '`${env:…}` for `relay apply` to resolve. `$schema` names /api/schemas/relay-config.json.',
    responses: { 200: { description: 'The document.', schema: configExportSchema } },
    handler: async ({ services, principal }) => ({ status: 200, body: await services.config.export(principal) }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/api/config/apply',
    access: { role: 'admin', scope: 'rules:write' },
    summary: 'Plan or apply a configuration document',
    description:
      'Makes the organization match the document, objects matched by name (rules by `name`, destinations and hooks ' +
      'by theirs within their rule), in one transaction with one `config.applied` audit entry: all or nothing. ' +
      '`dry_run=true` answers the plan only. `prune=true` also deletes what the document no longer names. Secrets ' +
      'are values here (the CLI resolves `${env:…}` and `${file:…}`) and are compared with the stored ones through ' +
      'a keyed hash: an unchanged secret plans nothing, and the plan and audit show secrets only as `(changed)`. ' +
      'A document that changes the notification settings from a caller without the `organization:manage` scope is ' +
      '403 `forbidden`; leave `notifications` out to keep them. Errors name the JSON path (`errors[].path`).',
    query: configApplyQuery,
    body: configDocumentSchema,
    responses: {
      200: { description: 'The plan; `applied` says whether it was carried out.', schema: configPlanSchema },
      403: { description: 'The document changes the notification settings without `organization:manage`.' },
      409: { description: 'A name or a source is taken (`rule_name_taken`, `active_provider_exists`, …).' },
      422: {
        description:
          'A target URL refused by the target policy (`target_url_rejected`), verification without a secret ' +
          '(`verification_secret_required`), or secrets without SECRET_ENCRYPTION_KEYS (`secrets_not_configured`).',
      },
    },
    handler: async ({ services, principal, body, query }) => ({
      status: 200,
      body: await services.config.apply(principal, body, {
        dryRun: query.dry_run === 'true',
        prune: query.prune === 'true',
      }),
    }),
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: CONFIG_SCHEMA_PATH,
    access: 'public',
    summary: 'The JSON Schema of a configuration file',
    description: 'Exported files name it in `$schema`, so editors complete and check them. No credentials needed.',
    responses: { 200: { description: 'JSON Schema (draft 2020-12).', schema: z.record(z.string(), z.unknown()) } },
    handler: ({ services }) => ({ status: 200, body: services.config.schema() }),
  }),
];
