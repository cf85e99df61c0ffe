import type { PendingIdpLogin } from '../../auth/sessions';
import { AppError, userPrincipal, type OrgId, type Principal } from '@relay/core';
import type { Repositories } from '@relay/db';
import * as oidc from 'openid-client';
import type { Logger } from 'pino';
import { callbackErrorCode, UNAUDITED_REASONS, type IdpCallbackErrorCode } from './idp-callback-failure';
import type { IdentityProviderConfig, IdentityProviderLookup } from './identity-provider';
import { classify, failure } from './idp-error-classify';
import { linkIdentity } from './idp-link';
import type { IdpLoginFailure } from './idp-login-failure';
import { userForIdentity, type IdpClaims } from './idp-users';
import type { LoginOrganizationResolver } from './login-organization';
import type { OidcConfigurations } from './oidc-configurations';

export interface IdpLoginDeps {
  repositories: Repositories;
  identityProviderFor: IdentityProviderLookup;
  configurations: OidcConfigurations;
  organizationFor: LoginOrganizationResolver;
  /** Counts a callback that signed nobody in, by its code (relay_idp_callback_rejected_total). */
  callbackRejected: (code: IdpCallbackErrorCode) => void;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** How long a started login may take at the provider. */
const PENDING_TTL_MS = 10 * 60_000;

// The identity-provider login (Authorization Code + PKCE, state and nonce, through openid-client): the
// redirect to the provider and the callback's validation, user lookup or provisioning. A failure of a login
// this browser started is audited as `auth.login_failed` with its reason; a callback of no such login (anyone
// can send one) only logged and counted. The operations start the session.
export function createIdpLoginService(deps: IdpLoginDeps) {
  const repos = deps.repositories;
  const providerOf = async (orgId: OrgId) => {
    const provider = await deps.identityProviderFor(orgId);
    if (!provider) throw new AppError('idp_not_configured');
    return provider;
  };

  async function audited(orgId: OrgId, ip: string | undefined, err: unknown): Promise<never> {
    const known = classify(err);
    // The organization hears only "cannot be reached" (no port scanning through its provider); the operator's
    // log says what happened, so a private provider missing from TARGET_ALLOWLIST can be told from one that is down.
    if (known.reason === 'provider_unreachable') {
      deps.logger.warn({ orgId, err }, 'identity provider not reached (down, or a URL refused by the target policy)');
    }
    // A callback of no login this browser started writes to nobody's audit log (idp-callback-failure.ts).
    if (!UNAUDITED_REASONS.has(known.reason)) await record(orgId, ip, known);
    throw new AppError('idp_login_failed', known.message, { reason: known.reason });
  }

  async function record(orgId: OrgId, ip: string | undefined, known: IdpLoginFailure) {
    await repos.audit.record(orgId, {
      actorUserId: known.user?.id ?? null,
      actorEmail: known.user?.email ?? null,
      action: 'auth.login_failed',
      resourceType: 'user',
      resourceId: known.user?.id ?? null,
      metadata: {
        mechanism: 'session',
        method: 'idp',
        reason: known.reason,
        ip,
        ...(known.detail ? { detail: known.detail } : {}),
      },
    });
  }

  /** The provider's answer checked: state, PKCE, the ID token (signature, issuer, audience, expiry, nonce). */
  async function redeem(provider: IdentityProviderConfig, pending: PendingIdpLogin, params: URLSearchParams) {
    const client = await deps.configurations.of(provider);
    const { configuration } = client;
    const currentUrl = new URL(pending.redirectUri);
    currentUrl.search = params.toString();
    const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      pkceCodeVerifier: pending.codeVerifier,
      idTokenExpected: true,
    });
    // openid-client checked the claims; the signature is checked here, against the provider's key set.
    await client.verifyIdToken(tokens.id_token!, pending.nonce);
    let claims: IdpClaims = { ...tokens.claims()! };
    // Providers that keep e-mail or groups out of the ID token answer them at the userinfo endpoint.
    const wanted = ['email', ...(provider.roleMapping ? [provider.roleMapping.claim] : [])];
    if (wanted.some((c) => claims[c] === undefined) && configuration.serverMetadata().userinfo_endpoint) {
      const info = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      claims = { ...info, ...claims, ...Object.fromEntries(wanted.map((c) => [c, claims[c] ?? info[c]])) };
    }
    return { issuer: String(claims.iss), claims };
  }

  /** Checks what the callback brought against the login this browser started, then redeems it. */
  async function validated(orgId: OrgId, pending: PendingIdpLogin | undefined, search: string) {
    const params = new URLSearchParams(search);
    if (!pending || pending.organizationId !== orgId || Date.now() - pending.startedAt > PENDING_TTL_MS) {
      throw failure('no_login_in_progress');
    }
    if (params.get('state') !== pending.state) throw failure('state_mismatch');
    if (params.has('error')) throw failure('provider_error', params.get('error')?.slice(0, 100));
    const provider = await providerOf(orgId);
    return { provider, ...(await redeem(provider, pending, params)) };
  }

  return {
    /** The organization a login starting on `host` (with `?organization=<slug>`) is for. */
    organizationFor: deps.organizationFor,

    /**
     * The provider's authorization URL and what the callback must find again. `origin`: where the login
     * starts (the callback is on that host unless the provider names its redirect URL).
     */
    async start(orgId: OrgId, returnTo: string, ip: string | undefined, origin: string, linkUserId?: string) {
      const provider = await providerOf(orgId);
      const { configuration } = await deps.configurations.of(provider).catch((err: unknown) => audited(orgId, ip, err));
      const pending: PendingIdpLogin = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        codeVerifier: oidc.randomPKCECodeVerifier(),
        organizationId: orgId,
        redirectUri: provider.redirectUri ?? `${origin}/api/auth/callback/idp`,
        returnTo,
        startedAt: Date.now(),
        ...(linkUserId ? { linkUserId } : {}),
      };
      const url = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: pending.redirectUri,
        scope: provider.scopes,
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, pending };
    },

    /** Validates the provider's answer (`search`: the callback's query string) and finds or makes the user. */
    async complete(
      orgId: OrgId,
      pending: PendingIdpLogin | undefined,
      search: string,
      ip: string | undefined,
    ): Promise<Principal> {
      try {
        const { provider, issuer, claims } = await validated(orgId, pending, search);
        const user = await userForIdentity(repos, provider, issuer, claims);
        const principal = userPrincipal(user, 'session');
        await repos.audit.record(orgId, {
          actorUserId: user.id,
          actorEmail: user.email,
          action: 'auth.login',
          resourceType: 'user',
          resourceId: user.id,
          metadata: { mechanism: 'session', method: 'idp', issuer, ip },
        });
        return principal;
      } catch (err) {
        if (err instanceof AppError) throw err;
        return audited(orgId, ip, err);
      }
    },

    /** The callback of a link: the identity goes to the signed-in user who started it, nobody is signed in. */
    async link(pending: PendingIdpLogin, principal: Principal | undefined, search: string, ip: string | undefined) {
      const orgId = pending.organizationId as OrgId;
      const signedIn = principal?.kind === 'user' && principal.mechanism === 'session';
      const sameUser = signedIn && principal.userId === pending.linkUserId && principal.orgId === orgId;
      let checked: Awaited<ReturnType<typeof validated>>;
      try {
        // Signed out or signed in as someone else since the start: this link is nobody's to finish.
        if (!sameUser) throw failure('no_login_in_progress');
        checked = await validated(orgId, pending, search);
      } catch (err) {
        if (err instanceof AppError) throw err;
        return audited(orgId, ip, err);
      }
      await linkIdentity(repos, principal, checked.issuer, checked.claims, ip);
    },

    /**
     * A callback that signed nobody in: logged and counted. Answers the code the sign-in page shows, or undefined
     * when `err` is no login failure (the caller lets it through as a problem).
     */
    callbackFailed(err: unknown, pending: PendingIdpLogin | undefined, ip: string | undefined) {
      const code = callbackErrorCode(err);
      if (code === undefined) return undefined;
      deps.callbackRejected(code);
      const organizationId = pending?.organizationId ?? null;
      deps.logger.info({ reason: code, organizationId, ip }, 'identity-provider callback rejected');
      return code;
    },

    /** `/config/oauth`: whether this organization can sign in through a provider, never a secret. */
    async availability(orgId: OrgId) {
      const provider = await deps.identityProviderFor(orgId);
      return provider ? { issuer: provider.issuer, buttonLabel: provider.buttonLabel } : null;
    },
  };
}
