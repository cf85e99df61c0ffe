import { dataOf } from '@relay/client';
import { verificationSecretRotateSchema } from '@relay/contracts';
import { defineTool } from '../tool-kit';
import { ruleIdInput, ruleSummary, ruleView } from './rule-views';

// Secret rotation of a rule's inbound verification: the sender and the relay cannot switch at the same instant,
// so the replaced secret is still accepted for a window.

export const rotateVerificationSecret = defineTool({
  name: 'rotate_rule_verification_secret',
  title: "Rotate a rule's verification secret",
  description:
    "Replaces the secret that verifies a rule's inbound webhook signatures. The new one verifies from now; the " +
    'replaced one is still accepted for previous_secret_valid_for_seconds (default 86400; 0 retires it at once), ' +
    'so the sender can switch over without refused webhooks. The secrets are never shown.',
  operation: 'POST /rules/{id}/verification-secret/rotate',
  input: {
    id: ruleIdInput,
    ...verificationSecretRotateSchema.shape,
  },
  output: { rule: ruleSummary },
  annotations: { destructiveHint: false },
  async run({ id, ...body }, { client, link }) {
    const rule = await dataOf(
      client.POST('/rules/{id}/verification-secret/rotate', { params: { path: { id } }, body }),
    );
    return { rule: ruleView(rule, link) };
  },
});
