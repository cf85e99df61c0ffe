import { needsReseal, openSecret, sealSecret, type SecretKeyring } from '@relay/core';
import type { Repositories } from '@relay/db';
import type { Logger } from 'pino';

/**
 * Start-up work: seals the signing and inbound verification secrets stored in plaintext, and
 * re-seals those sealed with a key that is no longer first in SECRET_ENCRYPTION_KEYS, so a retired
 * key can be dropped from the setting once every api process has started with the new one. Never
 * fatal: plaintext rows stay readable and the next start tries again, so an unreachable database
 * or a row under an unlisted key is logged rather than stopping the api.
 */
export async function resealSecrets(
  repositories: Pick<Repositories, 'rules'>,
  keys: SecretKeyring | undefined,
  logger: Logger,
): Promise<number> {
  if (!keys) {
    logger.warn('SECRET_ENCRYPTION_KEYS is not set: rules cannot store signing secrets (422 secrets_not_configured)');
    return 0;
  }
  let unreadable = 0;
  const reseal = (stored: string) => {
    if (!needsReseal(keys, stored)) return undefined;
    try {
      return sealSecret(keys, openSecret(keys, stored));
    } catch {
      unreadable += 1;
      return undefined;
    }
  };
  try {
    const count = await repositories.rules.resealSecrets(reseal);
    if (count > 0) logger.info({ count, keyId: keys.current.id }, 'sealed stored signing secrets with the current key');
    if (unreadable > 0)
      logger.error(
        { count: unreadable },
        'stored signing secrets are sealed with a key SECRET_ENCRYPTION_KEYS does not list: their deliveries fail',
      );
    return count;
  } catch (err) {
    logger.warn({ err }, 'could not re-seal stored signing secrets; the next start tries again');
    return 0;
  }
}
