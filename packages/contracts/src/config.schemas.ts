import { z } from 'zod';
import { resourceNameSchema } from './common.schemas';
import { destinationCreateSchema } from './destinations.schemas';
import { verificationSecret } from './rule-options.schemas';
import { hookCreateSchema, ruleCreateSchema, signingSecret, targetUrl } from './rules.schemas';

// Configuration as code (issue 34, docs/config-as-code.md): one document holds an organization's rules (with their
// destinations and hooks), its default target and its notification settings. Objects are matched by name.

export const CONFIG_VERSION = 1;
export const CONFIG_SCHEMA_PATH = '/api/schemas/relay-config.json';
export const MAX_CONFIG_RULES = 1_000;

/** In the file a secret is a reference the CLI resolves; only resolved values reach the api. */
export const SECRET_REFERENCE = /^\$\{(env|file):([^}]+)\}$/;
const secretReference = z
  .string()
  .regex(SECRET_REFERENCE, 'A reference: ${env:NAME} or ${file:./path} (relative to this file).')
  .describe('Never the secret itself: `${env:NAME}` or `${file:./path}`, resolved by `relay apply`.');

// The api refuses a reference that reached it unresolved: stored as a secret, it would sign with its own text.
const resolved = <T extends z.ZodString>(secret: T) =>
  secret.refine((value) => !SECRET_REFERENCE.test(value), 'An unresolved reference: the CLI resolves ${…} first.');

type Secret = z.ZodType<string, string>;

function documentSchema(secrets: { signing: Secret; verification: Secret }) {
  const name = resourceNameSchema.describe('Matches the object on apply: renaming is a delete and a create.');
  const destination = destinationCreateSchema.extend({
    name,
    signing_secret: secrets.signing.nullable().optional(),
  });
  const hook = hookCreateSchema.extend({ name });
  const rule = ruleCreateSchema.extend({
    name: resourceNameSchema.describe('Unique in the organization; matches the rule on apply.'),
    signing_secret: secrets.signing.nullable().optional(),
    verification_secret: secrets.verification.nullable().optional(),
    destinations: z.array(destination).max(20).default([]).describe("The rule's destinations, by name."),
    hooks: z.array(hook).max(100).default([]).describe("The rule's hooks, by name."),
  });
  const notifications = z
    .object({
      url: targetUrl.nullable().describe('Where notices go; null: no notices.'),
      secret: secrets.signing.nullable().optional().describe('Signs notices; absent or null: none of its own.'),
    })
    .strict()
    .describe('Notification settings: changing them needs the `organization:manage` scope (403 otherwise).');
  return z
    .object({
      $schema: z.string().max(2048).optional().describe('The JSON Schema of this file, for editors.'),
      version: z.literal(CONFIG_VERSION).describe('The format version.'),
      default_target_url: targetUrl
        .nullable()
        .optional()
        .describe("The organization's default target; null: none; absent: left as it is."),
      notifications: notifications.optional().describe('Absent: the notification settings are left as they are.'),
      rules: z.array(rule).max(MAX_CONFIG_RULES).default([]),
    })
    .strict()
    .superRefine((doc, ctx) => {
      // Names match objects: two of one name in one list would make the match ambiguous.
      const unique = (names: string[], at: (i: number) => (string | number)[], what: string) => {
        const seen = new Set<string>();
        names.forEach((n, i) => {
          if (seen.has(n)) ctx.addIssue({ code: 'custom', path: at(i), message: `Two ${what} named "${n}".` });
          seen.add(n);
        });
      };
      unique(
        doc.rules.map((r) => r.name),
        (i) => ['rules', i, 'name'],
        'rules',
      );
      doc.rules.forEach((r, ri) => {
        unique(
          r.destinations.map((d) => d.name),
          (i) => ['rules', ri, 'destinations', i, 'name'],
          'destinations of this rule',
        );
        unique(
          r.hooks.map((h) => h.name),
          (i) => ['rules', ri, 'hooks', i, 'name'],
          'hooks of this rule',
        );
      });
    })
    .describe("An organization's configuration as code (docs/config-as-code.md).");
}

/** The document POST /api/config/apply takes: secrets as values (the CLI resolved every reference). */
export const configDocumentSchema = documentSchema({
  signing: resolved(signingSecret),
  verification: resolved(verificationSecret),
});

/** The file as written and as exported: secrets only as references. Served as /api/schemas/relay-config.json. */
export const configFileSchema = documentSchema({ signing: secretReference, verification: secretReference });

export const configApplyQuery = z.object({
  dry_run: z.enum(['true', 'false']).optional().describe('true: answer the plan and change nothing.'),
  prune: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: also delete the rules, destinations and hooks the document no longer names.'),
});

export const CONFIG_OBJECT_KINDS = ['rule', 'destination', 'hook', 'default_target', 'notifications'] as const;
export const CONFIG_ACTIONS = ['create', 'update', 'delete'] as const;

const fieldChangeSchema = z.object({
  field: z.string().describe('The field, as the document names it.'),
  old: z.unknown().describe('The value before (a secret: `(set)` or null; a transform: its size and hash).'),
  new: z.unknown().describe('The value after (a secret: `(changed)` or null).'),
});

export const configChangeSchema = z.object({
  kind: z.enum(CONFIG_OBJECT_KINDS),
  action: z.enum(CONFIG_ACTIONS),
  name: z.string().describe('The object: the rule, destination or hook name (`default_target`, `notifications`).'),
  rule: z.string().nullable().describe('The rule a destination or hook belongs to; null otherwise.'),
  path: z.string().describe('Where the object is in the document (JSON pointer); "" for a deletion.'),
  fields: z.array(fieldChangeSchema).describe('Field by field; a deletion lists none.'),
});

export const configPlanSchema = z.object({
  changes: z.array(configChangeSchema).describe('Empty: the organization already matches the document.'),
  summary: z.object({ create: z.number().int(), update: z.number().int(), delete: z.number().int() }),
  prune: z.boolean(),
  applied: z.boolean().describe('false for a dry run, or when there was nothing to change.'),
});

/** The export: the file's own shape, with `$schema` set and secrets as references. */
export const configExportSchema = z
  .record(z.string(), z.unknown())
  .describe(
    'The configuration document (the shape of /api/schemas/relay-config.json); every secret as a reference ' +
      '`${env:…}` (docs/config-as-code.md, "Secrets").',
  );
