import { seedUser } from './harness';
import {
  me,
  passwordLogin,
  startOrganizationsWorld,
  toCallback,
  type OrganizationsWorld,
} from './oidc-organizations-fixture';
import { CookieJar } from './oidc-test-provider';

// Linking a provider identity to an existing password user: only while signed in, only to that user, never an
// identity another user has.
let world: OrganizationsWorld;

beforeAll(async () => {
  world = await startOrganizationsWorld();
  await world.pipeline.http
    .put('/api/organization/identity-provider')
    .set('authorization', world.admin.alpha)
    .send({ issuer_url: world.providerA.issuer, client_id: 'alpha', client_secret: 'alpha-client-secret' })
    .expect(200);
  await seedUser(world.pipeline, { username: 'paula', role: 'viewer', password: 'paula-password-1' }, world.alpha);
  await seedUser(world.pipeline, { username: 'quinn', role: 'viewer', password: 'quinn-password-1' }, world.alpha);
});

afterAll(async () => {
  await world?.close();
});

const linkStart = () => `${world.relay.url}/api/auth/idp?link=1&return_to=/app/account`;

describe('linking an identity to a signed-in user', () => {
  it('refuses to start a link without a session', async () => {
    const res = await new CookieJar().get(linkStart());
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
  });

  it('links the identity to the signed-in password user, who can then sign in through the provider', async () => {
    const prisma = world.pipeline.store.prisma;
    const jar = new CookieJar();
    await passwordLogin(world, jar, 'paula', 'paula-password-1');
    const callback = await jar.get((await toCallback(jar, linkStart(), 'pat')).href);
    expect(callback.status).toBe(302);
    expect(callback.headers.get('location')).toBe('/app/account');
    // Still the same session: a link signs nobody in.
    expect(await me(world, jar)).toMatchObject({ login_method: 'password', user: { username: 'paula' } });
    const paula = await prisma.user.findUniqueOrThrow({ where: { username: 'paula' } });
    expect(await prisma.userIdentity.findMany({ where: { userId: paula.id } })).toEqual([
      expect.objectContaining({ issuer: world.providerA.issuer, subject: 'pat' }),
    ]);
    expect(await prisma.auditEntry.count({ where: { action: 'user.identity_linked', actorUserId: paula.id } })).toBe(1);
    // No provisioning is on: the login works only because of the link.
    const next = new CookieJar();
    const login = await next.get(
      (await toCallback(next, `${world.relay.url}/api/auth/idp?organization=alpha`, 'pat')).href,
    );
    expect(login.status).toBe(302);
    expect(await me(world, next)).toMatchObject({ login_method: 'idp', user: { username: 'paula' } });
  });

  it('refuses an identity linked to another user already', async () => {
    const prisma = world.pipeline.store.prisma;
    const jar = new CookieJar();
    await passwordLogin(world, jar, 'quinn', 'quinn-password-1');
    const res = await jar.get((await toCallback(jar, linkStart(), 'pat')).href);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'identity_taken' });
    const quinn = await prisma.user.findUniqueOrThrow({ where: { username: 'quinn' } });
    expect(await prisma.userIdentity.count({ where: { userId: quinn.id } })).toBe(0);
    expect(await prisma.auditEntry.count({ where: { action: 'user.identity_link_refused' } })).toBe(1);
  });

  it('links nothing when the session has changed hands between the start and the callback', async () => {
    const prisma = world.pipeline.store.prisma;
    const jar = new CookieJar();
    await passwordLogin(world, jar, 'quinn', 'quinn-password-1');
    const callback = await toCallback(jar, linkStart(), 'alice');
    // Signed out in between (the session, and with it the started link, is gone).
    await fetch(`${world.relay.url}/api/auth/logout`, {
      method: 'POST',
      headers: { cookie: jar.header(world.relay.url), 'sec-fetch-site': 'same-origin' },
    });
    const res = await jar.get(callback.href);
    // The started link went with the session: a callback of no login in progress, to the sign-in page.
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/app/login?error=no_login_in_progress');
    expect(await prisma.userIdentity.count({ where: { subject: 'alice' } })).toBe(0);
  });
});
