import type { OrgId } from '@relay/core';
import { createOrganization, FAST_HASH_ENV, startPipeline, userCredential, type Pipeline } from './harness';
import type { CookieJar } from './oidc-test-provider';
import { reservePort, startTestProvider, type TestProvider } from './oidc-test-provider';

// Two organizations, each with its own OpenID Connect provider (two oidc-provider child processes), behind one
// relay on a loopback port. Provider A also has a client for beta, so beta can be pointed at A's issuer.
export interface OrganizationsWorld {
  relay: Awaited<ReturnType<typeof reservePort>>;
  providerA: TestProvider;
  providerB: TestProvider;
  pipeline: Pipeline;
  alpha: OrgId;
  beta: OrgId;
  admin: { alpha: string; beta: string };
  close(): Promise<void>;
}

const person = (name: string, domain: string, groups: string[] = []) => ({
  email: `${name}@${domain}`,
  email_verified: true,
  preferred_username: name,
  groups,
});

export async function startOrganizationsWorld(): Promise<OrganizationsWorld> {
  const relay = await reservePort();
  const callback = [`${relay.url}/api/auth/callback/idp`];
  const providerA = await startTestProvider({
    clients: [
      { clientId: 'alpha', clientSecret: 'alpha-client-secret', redirectUris: callback },
      { clientId: 'beta-on-a', clientSecret: 'beta-on-a-secret', redirectUris: callback },
    ],
    users: { alice: person('alice', 'example.com', ['staff']), pat: person('pat', 'example.com') },
  });
  const providerB = await startTestProvider({
    clients: [{ clientId: 'beta', clientSecret: 'beta-client-secret', redirectUris: callback }],
    users: { alice: person('alice', 'beta.example'), bob: person('bob', 'beta.example') },
  });
  const pipeline = await startPipeline({
    worker: false,
    // Slug hosts under relay.test; the tests' own host (127.0.0.1) belongs to nobody, so `?organization=` picks.
    api: { PUBLIC_BASE_URL: relay.url, INGEST_CANONICAL_HOST: 'relay.test', ...FAST_HASH_ENV },
  });
  relay.serve(pipeline.api.app);
  const alpha = await createOrganization(pipeline, 'alpha');
  const beta = await createOrganization(pipeline, 'beta');
  const admin = {
    alpha: (await userCredential(pipeline, 'admin', alpha)).authorization,
    beta: (await userCredential(pipeline, 'admin', beta)).authorization,
  };
  return {
    relay,
    providerA,
    providerB,
    pipeline,
    alpha,
    beta,
    admin,
    close: async () => {
      await providerA.stop();
      await providerB.stop();
      await relay.close();
      await pipeline.close();
    },
  };
}

const isCallback = (url: URL) => url.pathname === '/api/auth/callback/idp';

/** Starts a login at `start` (a relay URL) and lets the provider sign `user` in; answers the callback URL. */
export async function toCallback(jar: CookieJar, start: string, user: string): Promise<URL> {
  const begun = await jar.get(start);
  if (begun.status !== 302) throw new Error(`login start answered ${begun.status}: ${await begun.text()}`);
  const authorize = new URL(begun.headers.get('location')!);
  authorize.searchParams.set('login_hint', user);
  const { url } = await jar.follow(authorize.href, isCallback);
  if (!isCallback(url)) throw new Error(`the provider did not come back: ${url.href}`);
  return url;
}

export type Me = Record<string, unknown> & { user: { id: string; username: string } | null };

export const me = async (world: OrganizationsWorld, jar: CookieJar): Promise<Me> =>
  (await (await jar.get(`${world.relay.url}/api/auth/me`)).json()) as Me;

/** A password login in this jar (the relay's own origin, as the dashboard sends it). */
export async function passwordLogin(world: OrganizationsWorld, jar: CookieJar, username: string, password: string) {
  const response = await fetch(`${world.relay.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ username, password }),
  });
  if (response.status !== 200) throw new Error(`password login answered ${response.status}`);
  jar.store(`${world.relay.url}/api/auth/login`, response);
}
