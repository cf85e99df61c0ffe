import { AppError, checkTargetUrl, type TargetPolicy } from '@relay/core';

/**
 * A target URL that passes the network policy, normalised; otherwise 422 `target_url_rejected` with
 * the reason. Rules, hooks, send and the default target all deliver to such URLs.
 */
export function allowedTarget(url: string, policy: TargetPolicy): string {
  const check = checkTargetUrl(url, policy);
  if (!check.ok) throw new AppError('target_url_rejected', check.message, { reason: check.reason });
  return check.url.toString();
}
