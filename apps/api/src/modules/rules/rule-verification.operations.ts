import { ruleSchema, uuidParam, verificationSecretRotateSchema } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

// Inbound signature verification's secret (docs/rules.md): set with the rule, rotated here.
export const ruleVerificationOperations = [
  defineOperation({
    tag: 'rules',
    notFound: 'No such rule.',
    method: 'post',
    path: '/rules/:id/verification-secret/rotate',
    access: { role: 'admin', scope: 'rules:write' },
    summary: 'Rotate the inbound verification secret; the replaced one is accepted until the window ends',
    params: uuidParam,
    body: verificationSecretRotateSchema,
    responses: {
      200: { description: 'Rotated.', schema: ruleSchema },
      422: { description: 'SECRET_ENCRYPTION_KEYS is not set (`secrets_not_configured`).' },
    },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.verificationSecrets.rotate(principal, params.id, body),
    }),
  }),
];
