import { checkTargetUrl, createGuardedLookup, TargetBlockedError, type TargetPolicy } from '@relay/core';
import type { Agent, fetch as UndiciFetch } from 'undici';

/** The fetch openid-client and jose accept (`customFetch`): a URL and the init they build. */
export type GuardedFetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * A fetch for URLs that come from user input or from a remote document (an organization's issuer and what its
 * discovery names: keys, token, userinfo). The target policy is applied twice: to the URL itself (scheme, port,
 * literal addresses, which are dialled without a lookup) and, through the agent's `lookup`, to every address a
 * name resolves to at connect time (DNS rebinding). No redirects: a 3xx is the answer.
 */
export function createGuardedFetch(
  policy: TargetPolicy,
  resolve?: Parameters<typeof createGuardedLookup>[1],
): GuardedFetch {
  // undici is loaded at the first call (an organization's sign-in), not at the api's start: ~3 MB of heap that most
  // installs, without an organization on OIDC, never use (docs/performance.md).
  let loaded: Promise<{ fetch: typeof UndiciFetch; dispatcher: Agent }> | undefined;
  const undici = () =>
    (loaded ??= import('undici').then(({ Agent, fetch }) => ({
      fetch,
      dispatcher: new Agent({ connect: { lookup: createGuardedLookup(policy, resolve) } }),
    })));
  return async (url, init) => {
    const check = checkTargetUrl(url, policy);
    if (!check.ok) throw new TargetBlockedError(check.message);
    const { fetch: undiciFetch, dispatcher } = await undici();
    // undici's own fetch (its Agent's `lookup` is what guards) answers the WHATWG Response the callers expect.
    return undiciFetch(url, {
      method: init.method,
      headers: init.headers as Record<string, string> | undefined,
      body: init.body as string | Uint8Array | URLSearchParams | null | undefined,
      signal: init.signal,
      redirect: 'manual',
      dispatcher,
    });
  };
}
