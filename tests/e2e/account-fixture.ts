import supertest from 'supertest';
import { basicAuth, FAST_HASH_ENV, seedUser, startPipeline, type Pipeline } from './harness';

export const BASE_URL = 'https://relay.example';

/** A pipeline whose sessions work over plain HTTP (supertest), with cheap hashes and a roomy login limit. */
export const startAccountPipeline = () =>
  startPipeline({
    api: {
      ...FAST_HASH_ENV,
      SESSION_SECRET: 'account-secret',
      SESSION_COOKIE_SECURE: 'false',
      PUBLIC_BASE_URL: BASE_URL,
      LOGIN_MAX_FAILURES_PER_USER: '50',
    },
    worker: false,
  });

/** A user with a password, a session of their own (a cookie jar) and a personal token. */
export async function accountOf(pipeline: Pipeline, username: string, role: 'admin' | 'viewer', password: string) {
  const user = await seedUser(pipeline, { username, role, password });
  const basic = basicAuth(username, password);
  const token = await pipeline.http
    .post('/api/auth/tokens')
    .set('authorization', basic)
    .send({ name: 't' })
    .expect(201);
  return {
    user,
    basic,
    token: `Bearer ${token.body.token as string}`,
    session: await sessionOf(pipeline, username, password),
  };
}

/** A new cookie jar signed in with this password; writes through it carry same-origin proof. */
export async function sessionOf(pipeline: Pipeline, username: string, password: string) {
  const agent = supertest.agent(pipeline.api.app);
  agent.set('sec-fetch-site', 'same-origin');
  await agent.post('/api/auth/login').send({ username, password }).expect(200);
  return agent;
}

/** The actions of the audit entries about one resource, oldest first. */
export const auditActions = async (pipeline: Pipeline, resourceId: string) =>
  (await pipeline.store.prisma.auditEntry.findMany({ where: { resourceId }, orderBy: { createdAt: 'asc' } })).map(
    (e) => e.action,
  );
