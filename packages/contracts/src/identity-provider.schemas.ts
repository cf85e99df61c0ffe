import { z } from 'zod';
import { timestamp } from './common.schemas';

const provisioningSchema = z
  .enum(['off', 'verified_email', 'domains'])
  .describe('Who gets a user at first login: nobody, any verified e-mail, or verified e-mails of allowed_domains.');

const roleMappingSchema = z
  .object({
    claim: z.string().trim().min(1).max(100).describe('e.g. `groups`'),
    admin: z.array(z.string().min(1).max(200)).min(1).max(50).describe('Values of the claim that make an admin.'),
  })
  .strict();

// `example.com` or `@example.com` (the service drops the `@`).
const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^@?(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/, 'an e-mail domain');

/** PUT /api/organization/identity-provider: the whole configuration; the secret is write-only. */
export const identityProviderUpdateSchema = z
  .object({
    issuer_url: z
      .string()
      .trim()
      .max(2048)
      .describe('The issuer exactly as its discovery document names it; https (http only on a loopback address).'),
    client_id: z.string().trim().min(1).max(255),
    client_secret: z
      .string()
      .min(1)
      .max(1024)
      .nullable()
      .optional()
      .describe('Write-only, stored sealed. Omitted: the stored secret stays; null: none (a public client, PKCE).'),
    scopes: z
      .string()
      .trim()
      .max(500)
      .describe('Space-separated; `openid` is always asked for.')
      .default('openid email profile'),
    button_label: z.string().trim().min(1).max(100).nullable().default(null),
    provisioning: provisioningSchema.default('off'),
    allowed_domains: z.array(domainName).max(100).default([]),
    role_mapping: roleMappingSchema
      .nullable()
      .default(null)
      .describe('With a mapping the role follows the provider at each login and is read-only in the users API.'),
  })
  .strict()
  .refine((b) => b.provisioning !== 'domains' || b.allowed_domains.length > 0, {
    message: '`domains` provisioning needs at least one allowed domain',
    path: ['allowed_domains'],
  });

export const identityProviderSchema = z.object({
  source: z
    .enum(['organization', 'settings'])
    .describe("The organization's own provider, or (default organization only) the OIDC_* settings."),
  issuer_url: z.string(),
  client_id: z.string(),
  has_client_secret: z.boolean().describe('The secret itself is never shown.'),
  scopes: z.string(),
  button_label: z.string(),
  provisioning: provisioningSchema,
  allowed_domains: z.array(z.string()),
  role_mapping: roleMappingSchema.nullable(),
  updated_at: timestamp.nullable(),
});
