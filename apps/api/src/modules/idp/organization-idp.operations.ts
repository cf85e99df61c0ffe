import { identityProviderSchema, identityProviderUpdateSchema } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

const manage = { role: 'admin', scope: 'organization:manage' } as const;
const common = { tag: 'organization', access: manage, path: '/api/organization/identity-provider' } as const;

// Which provider an organization's people sign in with decides who gets in: organization management.
export const organizationIdpOperations = [
  defineOperation({
    ...common,
    method: 'get',
    summary: "The organization's identity provider (never its client secret)",
    responses: {
      200: { description: 'The provider; `has_client_secret` instead of the secret.', schema: identityProviderSchema },
      404: { description: 'No provider for this organization (`idp_not_configured`).' },
    },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: await services.organizationIdp.get(principal),
    }),
  }),
  defineOperation({
    ...common,
    method: 'put',
    summary: "Set the organization's identity provider (OpenID Connect)",
    description:
      'Replaces the whole configuration. `client_secret` is write-only and stored sealed with ' +
      'SECRET_ENCRYPTION_KEYS; omitted, the stored one stays. The issuer must be https:// (http:// only on a ' +
      'loopback address). The provider must allow the callback `https://<host>/api/auth/callback/idp` of every ' +
      'host people sign in on.',
    body: identityProviderUpdateSchema,
    responses: {
      200: { description: 'Saved.', schema: identityProviderSchema },
      422: {
        description: 'A client secret without SECRET_ENCRYPTION_KEYS on this install (`secrets_not_configured`).',
      },
    },
    handler: async ({ services, principal, body }) => ({
      status: 200,
      body: await services.organizationIdp.save(principal, body),
    }),
  }),
  defineOperation({
    ...common,
    method: 'delete',
    summary: "Remove the organization's identity provider",
    description: 'The default organization falls back to the OIDC_* settings, if any.',
    responses: {
      204: { description: 'Removed.' },
      404: { description: 'The organization has no provider of its own (`not_found`).' },
    },
    handler: async ({ services, principal }) => {
      await services.organizationIdp.delete(principal);
      return { status: 204 };
    },
  }),
];
