import type { IncomingHttpHeaders } from 'node:http';
import { AppError, openSecret, verifyInboundSignature, type OrgId, type SecretKeyring } from '@relay/core';
import type { RuleRepository } from '@relay/db';
import type { Logger } from 'pino';
import type { IngestRule } from './ingest-rules';

/** Throws `signature_invalid` unless the webhook is signed as the rule's verification option says. */
export type InboundVerifier = (
  orgId: OrgId,
  rule: IngestRule,
  body: Buffer,
  headers: IncomingHttpHeaders,
) => Promise<void>;

export interface InboundVerifierDeps {
  /** SECRET_ENCRYPTION_KEYS: the verification secrets are stored sealed. */
  keys: SecretKeyring | undefined;
  rules: Pick<RuleRepository, 'recordSignatureFailure'>;
  logger: Logger;
  now?: () => number;
}

// Inbound signature verification (docs/rules.md): before anything is stored, the rule's scheme is
// checked over the raw body. A refusal is counted on the rule (one UPDATE); the answer names no
// failing part, so a forger gets no oracle, and the reason is logged at debug for the rule's admin.
export function createInboundVerifier(deps: InboundVerifierDeps): InboundVerifier {
  const now = deps.now ?? Date.now;
  return async (orgId, rule, body, headers) => {
    const option = rule.verification;
    if (option === null) return;
    const at = now();
    const secrets: string[] = [];
    // The API refuses verification without a secret; a rule that still has none refuses every webhook (fails closed).
    if (rule.verificationSecret !== null) secrets.push(openSecret(deps.keys, rule.verificationSecret));
    const previous = rule.previousVerificationSecret;
    if (previous !== null && (rule.previousVerificationExpiresAt?.getTime() ?? 0) > at)
      secrets.push(openSecret(deps.keys, previous));
    const result = verifyInboundSignature({ option, secrets, body, headers, nowSeconds: Math.floor(at / 1000) });
    if (result.ok) return;
    deps.logger.debug({ ruleId: rule.id, preset: option.preset, reason: result.reason }, 'inbound signature refused');
    // The count is for the admin's eyes; failing to write it does not change the answer.
    await deps.rules.recordSignatureFailure(orgId, rule.id, new Date(at)).catch((err: unknown) => {
      deps.logger.warn({ err, ruleId: rule.id }, 'could not count a refused inbound signature');
    });
    throw new AppError('signature_invalid');
  };
}
