import {
  defaultTargetSchema,
  defaultTargetStateSchema,
  endpointSchema,
  oauthQuerySchema,
  oauthSchema,
} from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

export const settingsOperations = [
  defineOperation({
    method: 'get',
    path: '/config/default-target',
    tag: 'config',
    // Read by everyone who reads the rules: it is where events without a rule go.
    access: { role: 'viewer', scope: 'rules:read' },
    summary: "The organization's default target and the one in effect",
    responses: { 200: { description: 'The stored and effective default.', schema: defaultTargetStateSchema } },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: await services.settings.defaultTarget(principal),
    }),
  }),
  defineOperation({
    method: 'post',
    path: '/config/default-target',
    tag: 'config',
    access: { role: 'admin', scope: 'rules:write' },
    summary: "Set or clear the organization's default target",
    body: defaultTargetSchema,
    responses: {
      200: { description: 'The stored and effective default.', schema: defaultTargetStateSchema },
      422: { description: 'Refused by the target policy (`target_url_rejected`).' },
    },
    handler: async ({ services, principal, body }) => ({
      status: 200,
      body: await services.settings.setDefaultTarget(principal, body.target_url),
    }),
  }),
  defineOperation({
    method: 'get',
    path: '/config/endpoint',
    tag: 'config',
    access: 'public',
    summary: 'The public ingest URLs',
    responses: { 200: { description: 'Where senders send webhooks.', schema: endpointSchema } },
    // Public, but credentials that were sent pick the organization (the principal is optional here).
    handler: async ({ services, req }) => ({
      status: 200,
      body: await services.settings.endpoint(req.principal?.orgId, req.hostname ?? ''),
    }),
  }),
  defineOperation({
    method: 'get',
    path: '/config/oauth',
    tag: 'config',
    access: 'public',
    summary: 'Whether identity-provider login is configured',
    query: oauthQuerySchema,
    responses: { 200: { description: 'Login options.', schema: oauthSchema } },
    // Credentials that were sent pick the organization; without them `?organization=`, else the Host's.
    handler: async ({ services, req, query }) => {
      const orgId =
        req.principal?.orgId ??
        (await services.idpLogin.organizationFor(req.hostname, query.organization).catch(() => null));
      const named = req.principal?.orgId ?? (await services.settings.organizationToName(req.hostname ?? ''));
      return { status: 200, body: await services.settings.oauth(orgId, named) };
    },
  }),
];
